#pragma once
// The relist's two unfiltered list answers, kept as the bytes the runtime
// sent, with views of the few fields a relist reads.
//
// Why not parsed messages: perf on a 10,000-container node showed half of
// both the agent's and a bare client's CPU in malloc/free, one allocation for
// every id, label key and value, annotation and image of every container
// (~100,000 per relist). A relist reads eight fields of each item; decoding
// just those from the wire (protobuf's CodedInputStream, skipping the rest)
// allocates nothing per item.
//
// The decoding follows proto3: the last value of a repeated scalar field
// wins, an embedded message seen twice is merged, a field with an unexpected
// wire type is an unknown field and skipped, and the string fields read must
// be valid UTF-8 (a parser that read them as messages would refuse them too).
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message_lite.h>

#include "cri/list_answer.h"
#include "cri_runtime_v1.pb.h"

namespace plegscope {

namespace cri = ::runtime::v1;

// PodSandbox: id, metadata {name, uid, namespace}, state.
struct SandboxEntry {
  std::string_view id;
  std::string_view name;
  std::string_view uid;
  std::string_view namespace_;
  int state = 0;  // runtime.v1.PodSandboxState; unknown values kept
};

// Container: id, pod_sandbox_id, metadata.name, state, and the kubelet's labels.
struct ContainerEntry {
  std::string_view id;
  std::string_view pod_sandbox_id;
  std::string_view name;
  int state = 0;  // runtime.v1.ContainerState; unknown values kept
  std::string_view pod_uid_label;        // io.kubernetes.pod.uid
  std::string_view pod_name_label;       // io.kubernetes.pod.name
  std::string_view pod_namespace_label;  // io.kubernetes.pod.namespace
  std::string_view container_name_label; // io.kubernetes.container.name
};

// Decode a serialized ListPodSandboxResponse / ListContainersResponse into
// entries that view `bytes`. false: not a valid answer; `error` says where.
bool decode_sandbox_list(std::string_view bytes, std::vector<SandboxEntry>& out, std::string& error);
bool decode_container_list(std::string_view bytes, std::vector<ContainerEntry>& out,
                           std::string& error);

// A list answer's bytes and the entries viewing them. Move-only; the bytes
// live behind a pointer, so moving the list (even a short answer that a
// string would keep inline) leaves the views valid.
template <typename Entry>
class WireList {
 public:
  WireList() = default;
  WireList(WireList&&) noexcept = default;
  WireList& operator=(WireList&&) noexcept = default;
  WireList(const WireList&) = delete;
  WireList& operator=(const WireList&) = delete;

  // Takes `bytes` and decodes them; false (and `error`) if they are not a
  // valid answer, leaving the list empty.
  bool assign(std::string bytes, std::string& error);

  // The same answer as the pieces it arrived in (gRPC's receive slices, in
  // order), kept alive by `owner`, decoded where they lie: an item that
  // straddles two pieces is copied, nothing else is. At 10,000 containers
  // this saves a contiguous copy of the whole answer (4.8 MiB) alive beside
  // the slices. An answer that is not a plain list of items (or is
  // malformed) is joined and decoded by assign(), with its errors.
  bool assign_pieces(const std::vector<std::string_view>& pieces, std::shared_ptr<const void> owner,
                     std::string& error);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  size_t byte_size() const { return storage_ ? storage_->byte_size : 0; }
  const Entry& operator[](size_t i) const { return entries_[i]; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  // What the entries view: one contiguous answer, or the owner of its pieces
  // and the copies of the items that straddled two of them.
  struct Storage {
    std::string bytes;
    std::shared_ptr<const void> owner;
    std::deque<std::string> straddling;
    size_t byte_size = 0;
  };
  std::unique_ptr<const Storage> storage_;
  std::vector<Entry> entries_;
};

using SandboxList = WireList<SandboxEntry>;
using ContainerList = WireList<ContainerEntry>;

// Appends `message` as length-delimited field `field` (how a repeated
// message field is written): to_wire_list, and the pod status cache's store.
void write_message_field(int field, const google::protobuf::MessageLite& message,
                         google::protobuf::io::CodedOutputStream& out);

// The same lists from parsed items (fakes, tests, and a runtime that streams
// its lists): serialized once, then decoded like a unary answer.
bool to_wire_list(const ListAnswer<cri::PodSandbox>& items, SandboxList& out, std::string& error);
bool to_wire_list(const ListAnswer<cri::Container>& items, ContainerList& out, std::string& error);

}  // namespace plegscope
