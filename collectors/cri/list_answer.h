#pragma once
// The items of a list call as the runtime sent them, kept where the gRPC
// client parsed them: on one protobuf arena that this handle keeps alive, so
// the messages are carved from a few large blocks and freed together. Used
// for filtered lists (pod inspection) and streamed lists; the relist reads its
// two unfiltered lists from their bytes instead (list_wire.h).
#include <google/protobuf/arena.h>
#include <google/protobuf/repeated_ptr_field.h>

#include <memory>
#include <vector>

namespace plegscope {

// Copies share the items. Not thread-safe to mutate while shared.
template <typename T>
class ListAnswer {
 public:
  using Items = google::protobuf::RepeatedPtrField<T>;

  ListAnswer() : items_(std::make_shared<Items>()) {}
  // Items on the heap: for fakes and tests.
  ListAnswer(std::vector<T> items) : items_(std::make_shared<Items>()) {  // NOLINT: implicit on purpose
    items_->Reserve(static_cast<int>(items.size()));
    for (auto& item : items) *items_->Add() = std::move(item);
  }
  // Items that live on `arena`, which the answer keeps alive.
  ListAnswer(std::shared_ptr<google::protobuf::Arena> arena, Items* items)
      : items_(std::shared_ptr<Items>(std::move(arena), items)) {}

  size_t size() const { return static_cast<size_t>(items_->size()); }
  bool empty() const { return items_->empty(); }
  const T& operator[](size_t i) const { return items_->Get(static_cast<int>(i)); }
  auto begin() const { return items_->begin(); }
  auto end() const { return items_->end(); }
  // For a consumer that takes strings out instead of copying them.
  Items& mutable_items() { return *items_; }

 private:
  std::shared_ptr<Items> items_;
};

}  // namespace plegscope
