// libFuzzer target for runtime answers: arbitrary bytes decoded as CRI list
// answers and container events, then put through two relists and the evented
// PLEG. A hostile or broken runtime must never crash the agent. The relist's
// own wire decoding (list_wire.h) is checked against protobuf's parser on the
// same bytes: whatever protobuf parses, it must decode to the same fields,
// and cut in pieces as gRPC receives it, the same as joined.
#include <prometheus/registry.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cri/list_wire.h"
#include "fuzz_quiet.h"
#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"

namespace {

using namespace plegscope;

// Splits the input into three messages: sandboxes, containers, an event.
void decode(const uint8_t* data, size_t size, cri::ListPodSandboxResponse& sandboxes,
            cri::ListContainersResponse& containers, cri::ContainerEventResponse& event) {
  size_t third = size / 3;
  sandboxes.ParseFromArray(data, static_cast<int>(third));
  containers.ParseFromArray(data + third, static_cast<int>(third));
  event.ParseFromArray(data + 2 * third, static_cast<int>(size - 2 * third));
}

std::string label(const google::protobuf::Map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

void check(bool same) {
  if (!same) __builtin_trap();
}

// Wherever protobuf parses `bytes` as a Response, the decoder must succeed
// with one entry per item, each the same as the item (`same`).
template <typename Response, typename Entry, typename Decode, typename Items, typename Same>
void check_against_protobuf(std::string_view bytes, Decode decode, Items items_of, Same same) {
  std::vector<Entry> entries;
  std::string error;
  const bool decoded = decode(bytes, entries, error);
  Response parsed;
  if (!parsed.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return;
  const auto& items = items_of(parsed);
  check(decoded && entries.size() == static_cast<size_t>(items.size()));
  for (size_t i = 0; i < entries.size(); ++i) check(same(entries[i], items.Get(static_cast<int>(i))));
}

void check_wire_decoding(const uint8_t* data, size_t size) {
  const size_t third = size / 3;
  const char* bytes = reinterpret_cast<const char*>(data);
  check_against_protobuf<cri::ListPodSandboxResponse, SandboxEntry>(
      std::string_view(bytes, third), decode_sandbox_list,
      [](const cri::ListPodSandboxResponse& r) -> const auto& { return r.items(); },
      [](const SandboxEntry& e, const cri::PodSandbox& s) {
        return e.id == s.id() && e.name == s.metadata().name() && e.uid == s.metadata().uid() &&
               e.namespace_ == s.metadata().namespace_() && e.state == static_cast<int>(s.state());
      });
  check_against_protobuf<cri::ListContainersResponse, ContainerEntry>(
      std::string_view(bytes + third, third), decode_container_list,
      [](const cri::ListContainersResponse& r) -> const auto& { return r.containers(); },
      [](const ContainerEntry& e, const cri::Container& c) {
        return e.id == c.id() && e.pod_sandbox_id == c.pod_sandbox_id() && e.name == c.metadata().name() &&
               e.state == static_cast<int>(c.state()) &&
               e.pod_uid_label == label(c.labels(), kPodUidLabel) &&
               e.pod_name_label == label(c.labels(), kPodNameLabel) &&
               e.pod_namespace_label == label(c.labels(), kPodNamespaceLabel) &&
               e.container_name_label == label(c.labels(), kContainerNameLabel);
      });
}

// The relist decodes an answer in the pieces gRPC received it in: cut
// anywhere, the same bytes must decode as they do joined (the same success,
// error and entries). The cut points come from the input's first byte.
template <typename Entry, typename Same>
void check_pieces_against_joined(std::string_view bytes, uint8_t cut_seed, Same same) {
  WireList<Entry> joined, pieced;
  std::string joined_error, pieced_error;
  const bool joined_ok = joined.assign(std::string(bytes), joined_error);
  auto copy = std::make_shared<std::string>(bytes);  // the pieces' owner, as gRPC's slices are
  std::vector<std::string_view> pieces;
  const size_t step = 1 + cut_seed % 97;
  for (size_t at = 0, n = 0; at < copy->size(); at += n) {
    n = std::min(copy->size() - at, step + (at * 7 + cut_seed) % step);
    pieces.emplace_back(copy->data() + at, n);
  }
  const bool pieced_ok = pieced.assign_pieces(pieces, copy, pieced_error);
  check(pieced_ok == joined_ok && pieced_error == joined_error && pieced.size() == joined.size());
  copy.reset();  // the list's owner keeps the pieces alive
  for (size_t i = 0; i < joined.size(); ++i) check(same(pieced[i], joined[i]));
}

void check_pieced_decoding(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const size_t third = size / 3;
  const char* bytes = reinterpret_cast<const char*>(data);
  check_pieces_against_joined<SandboxEntry>(std::string_view(bytes, third), data[0],
                                            [](const SandboxEntry& a, const SandboxEntry& b) {
                                              return a.id == b.id && a.name == b.name && a.uid == b.uid &&
                                                     a.namespace_ == b.namespace_ && a.state == b.state;
                                            });
  check_pieces_against_joined<ContainerEntry>(
      std::string_view(bytes + third, third), data[0], [](const ContainerEntry& a, const ContainerEntry& b) {
        return a.id == b.id && a.pod_sandbox_id == b.pod_sandbox_id && a.name == b.name && a.state == b.state &&
               a.pod_uid_label == b.pod_uid_label && a.pod_name_label == b.pod_name_label &&
               a.pod_namespace_label == b.pod_namespace_label && a.container_name_label == b.container_name_label;
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cri::ListPodSandboxResponse sandboxes;
  cri::ListContainersResponse containers;
  cri::ContainerEventResponse event;
  decode(data, size, sandboxes, containers, event);
  check_wire_decoding(data, size);
  check_pieced_decoding(data, size);

  plegscope::testing::FakeRuntime fake;
  plegscope::testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg generic(fake, clock, cache, metrics, GenericPlegOptions{16, kGenericRelistTiming});
  generic.relist();  // empty node
  fake.sandboxes.assign(sandboxes.items().begin(), sandboxes.items().end());
  fake.containers.assign(containers.containers().begin(), containers.containers().end());
  generic.relist();
  fake.containers.clear();
  generic.relist();

  EventedPleg evented(fake, clock, cache, generic, metrics, registry, EventedPlegOptions{});
  evented.process(event);
  return 0;
}
