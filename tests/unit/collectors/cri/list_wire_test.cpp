// The relist's wire decoding against protobuf's own parser: whatever
// ParseFromString makes of an answer, the decoded entries say the same.
#include "cri/list_wire.h"

#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <memory>
#include <random>

#include "cri/kubernetes_labels.h"

namespace plegscope {
namespace {

cri::Container full_container(const std::string& id) {
  cri::Container c;
  c.set_id(id);
  c.set_pod_sandbox_id("sandbox-" + id);
  c.mutable_metadata()->set_name("app-" + id);
  c.mutable_metadata()->set_attempt(3);
  c.mutable_image()->set_image("registry.example/app:1.2");
  c.set_image_ref("sha256:0123456789abcdef");
  c.set_state(cri::CONTAINER_EXITED);
  c.set_created_at(1700000000000000000);
  auto& labels = *c.mutable_labels();
  labels[kPodUidLabel] = "uid-" + id;
  labels[kPodNameLabel] = "pod-" + id;
  labels[kPodNamespaceLabel] = "kube-system";
  labels[kContainerNameLabel] = "label-name-" + id;
  labels["app"] = "web";
  (*c.mutable_annotations())["io.kubernetes.container.hash"] = "abc";
  return c;
}

// `item` as field 1 of a list answer: a tag, a varint length, the bytes.
std::string as_list_field(const std::string& item) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(0x0a);
    coded.WriteVarint32(static_cast<uint32_t>(item.size()));
    coded.WriteRaw(item.data(), static_cast<int>(item.size()));
  }
  return out;
}

void expect_same(const ContainerEntry& e, const cri::Container& c) {
  EXPECT_EQ(e.id, c.id());
  EXPECT_EQ(e.pod_sandbox_id, c.pod_sandbox_id());
  EXPECT_EQ(e.name, c.metadata().name());
  EXPECT_EQ(e.state, static_cast<int>(c.state()));
  auto label = [&](const char* key) {
    auto it = c.labels().find(key);
    return it == c.labels().end() ? std::string() : it->second;
  };
  EXPECT_EQ(e.pod_uid_label, label(kPodUidLabel));
  EXPECT_EQ(e.pod_name_label, label(kPodNameLabel));
  EXPECT_EQ(e.pod_namespace_label, label(kPodNamespaceLabel));
  EXPECT_EQ(e.container_name_label, label(kContainerNameLabel));
}

TEST(ListWire, ContainersDecodeAsProtobufParsesThem) {
  cri::ListContainersResponse answer;
  for (const char* id : {"a", "b", "c"}) *answer.add_containers() = full_container(id);
  answer.mutable_containers(1)->clear_labels();  // no kubelet labels at all
  answer.mutable_containers(2)->set_state(static_cast<cri::ContainerState>(42));  // unknown value: kept
  std::string bytes = answer.SerializeAsString();
  std::vector<ContainerEntry> entries;
  std::string error;
  ASSERT_TRUE(decode_container_list(bytes, entries, error)) << error;
  ASSERT_EQ(entries.size(), 3u);
  for (int i = 0; i < 3; ++i) expect_same(entries[i], answer.containers(i));
}

TEST(ListWire, SandboxesDecodeAsProtobufParsesThem) {
  cri::ListPodSandboxResponse answer;
  auto* s = answer.add_items();
  s->set_id("s1");
  s->mutable_metadata()->set_name("web-0");
  s->mutable_metadata()->set_uid("uid-1");
  s->mutable_metadata()->set_namespace_("default");
  s->set_state(cri::SANDBOX_NOTREADY);
  (*s->mutable_labels())["app"] = "web";
  answer.add_items()->set_id("s2");  // no metadata
  std::vector<SandboxEntry> entries;
  std::string error;
  const std::string bytes = answer.SerializeAsString();  // the entries view it
  ASSERT_TRUE(decode_sandbox_list(bytes, entries, error)) << error;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, "s1");
  EXPECT_EQ(entries[0].name, "web-0");
  EXPECT_EQ(entries[0].uid, "uid-1");
  EXPECT_EQ(entries[0].namespace_, "default");
  EXPECT_EQ(entries[0].state, cri::SANDBOX_NOTREADY);
  EXPECT_EQ(entries[1].id, "s2");
  EXPECT_TRUE(entries[1].uid.empty());
  EXPECT_EQ(entries[1].state, cri::SANDBOX_READY);
}

// Two serialized messages back to back are one merged message in proto3:
// scalars and strings take the later value, embedded messages merge, and a
// later map entry for a key replaces the earlier one.
TEST(ListWire, RepeatedFieldsMergeAsInProto3) {
  cri::Container first = full_container("x");
  cri::Container second;
  second.set_state(cri::CONTAINER_RUNNING);
  second.mutable_metadata()->set_attempt(4);  // metadata again, without a name: the name stays
  (*second.mutable_labels())[kPodUidLabel] = "uid-later";
  std::string item = first.SerializeAsString() + second.SerializeAsString();
  cri::Container merged;
  ASSERT_TRUE(merged.ParseFromString(item));
  cri::ListContainersResponse answer;
  *answer.add_containers() = merged;

  const std::string bytes = as_list_field(item);
  std::vector<ContainerEntry> entries;
  std::string error;
  ASSERT_TRUE(decode_container_list(bytes, entries, error)) << error;
  ASSERT_EQ(entries.size(), 1u);
  expect_same(entries[0], merged);
  EXPECT_EQ(entries[0].pod_uid_label, "uid-later");
  EXPECT_EQ(entries[0].name, "app-x");
}

TEST(ListWire, UnknownFieldsAndWrongWireTypesAreSkipped) {
  std::string item = full_container("u").SerializeAsString();
  item += std::string("\xf8\x06\x07", 3);          // field 111, varint: unknown
  item += std::string("\x08\x05", 2);              // field 1 (id) as a varint: unknown, id kept
  item += std::string("\x35\x01\x02\x03\x04", 5);  // field 6 (state) as fixed32: unknown
  std::string bytes = as_list_field(item);
  bytes += std::string("\x10\x01", 2);  // field 2 of the list: unknown
  cri::ListContainersResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  std::vector<ContainerEntry> entries;
  std::string error;
  ASSERT_TRUE(decode_container_list(bytes, entries, error)) << error;
  ASSERT_EQ(entries.size(), 1u);
  expect_same(entries[0], parsed.containers(0));
}

TEST(ListWire, MalformedAnswersAreRefusedWithAReason) {
  std::string good;
  {
    cri::ListContainersResponse answer;
    *answer.add_containers() = full_container("m");
    good = answer.SerializeAsString();
  }
  std::vector<ContainerEntry> entries;
  std::string error;
  EXPECT_FALSE(decode_container_list(good.substr(0, good.size() - 3), entries, error));
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(entries.empty());

  cri::ListContainersResponse bad_utf8;
  bad_utf8.add_containers()->mutable_id()->assign("\xff\xfe", 2);
  std::string bytes;
  bad_utf8.SerializePartialToString(&bytes);
  cri::ListContainersResponse reparsed;
  EXPECT_FALSE(reparsed.ParseFromString(bytes)) << "protobuf refuses a proto3 string that is not UTF-8";
  error.clear();
  EXPECT_FALSE(decode_container_list(bytes, entries, error));
  EXPECT_NE(error.find("item 0"), std::string::npos) << error;
}

// Random corruptions of a real answer: wherever protobuf parses one, the
// entries carry what it parsed.
TEST(ListWire, AgreesWithProtobufOnCorruptedAnswers) {
  cri::ListContainersResponse answer;
  for (const char* id : {"p", "q", "r", "s"}) *answer.add_containers() = full_container(id);
  const std::string good = answer.SerializeAsString();
  std::mt19937 rng(7);
  int parsed_by_both = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    cri::ListContainersResponse reference;
    if (!reference.ParseFromString(bytes)) continue;
    std::vector<ContainerEntry> entries;
    std::string error;
    ASSERT_TRUE(decode_container_list(bytes, entries, error)) << "protobuf parsed it: " << error;
    ASSERT_EQ(entries.size(), static_cast<size_t>(reference.containers_size()));
    for (size_t i = 0; i < entries.size(); ++i) expect_same(entries[i], reference.containers(static_cast<int>(i)));
    ++parsed_by_both;
  }
  EXPECT_GT(parsed_by_both, 1000) << "too few corruptions parsed to compare";
}

// `bytes` cut at `cuts` into separately allocated pieces, as gRPC's receive
// slices arrive; the pieces live as long as the owner does.
struct Pieces {
  std::shared_ptr<std::vector<std::string>> owner = std::make_shared<std::vector<std::string>>();
  std::vector<std::string_view> views;
};

Pieces cut(const std::string& bytes, std::vector<size_t> cuts) {
  Pieces p;
  cuts.push_back(bytes.size());
  std::sort(cuts.begin(), cuts.end());
  size_t from = 0;
  p.owner->reserve(cuts.size());
  for (size_t to : cuts) {
    p.owner->push_back(bytes.substr(from, to - from));  // empty pieces too
    from = to;
  }
  for (const auto& piece : *p.owner) p.views.emplace_back(piece);
  return p;
}

// The pieces decode as the joined answer does: same outcome, same error,
// same entries; a view into a piece never outlives the list.
void expect_pieces_decode_as_joined(const std::string& bytes, const std::vector<size_t>& cuts) {
  ContainerList joined, pieced;
  std::string joined_error, pieced_error;
  const bool joined_ok = joined.assign(bytes, joined_error);
  bool pieced_ok = false;
  {
    Pieces p = cut(bytes, cuts);
    pieced_ok = pieced.assign_pieces(p.views, p.owner, pieced_error);
  }
  ASSERT_EQ(pieced_ok, joined_ok) << pieced_error << " / " << joined_error;
  EXPECT_EQ(pieced_error, joined_error);
  ContainerList moved = std::move(pieced);
  ASSERT_EQ(moved.size(), joined.size());
  if (joined_ok) {
    EXPECT_EQ(moved.byte_size(), bytes.size());
  }
  for (size_t i = 0; i < joined.size(); ++i) {
    EXPECT_EQ(moved[i].id, joined[i].id);
    EXPECT_EQ(moved[i].pod_sandbox_id, joined[i].pod_sandbox_id);
    EXPECT_EQ(moved[i].name, joined[i].name);
    EXPECT_EQ(moved[i].state, joined[i].state);
    EXPECT_EQ(moved[i].pod_uid_label, joined[i].pod_uid_label);
    EXPECT_EQ(moved[i].pod_name_label, joined[i].pod_name_label);
    EXPECT_EQ(moved[i].pod_namespace_label, joined[i].pod_namespace_label);
    EXPECT_EQ(moved[i].container_name_label, joined[i].container_name_label);
  }
}

TEST(ListWire, AnswerInPiecesDecodesAtEveryCut) {
  cri::ListContainersResponse answer;
  for (const char* id : {"a", "b", "c"}) *answer.add_containers() = full_container(id);
  std::string bytes = answer.SerializeAsString();
  bytes += std::string("\x10\x01", 2);                  // field 2, varint
  bytes += std::string("\x19\x01\x02\x03\x04\x05\x06\x07\x08", 9);  // field 3, fixed64
  bytes += std::string("\x25\x01\x02\x03\x04", 5);      // field 4, fixed32
  bytes += as_list_field(full_container("d").SerializeAsString());
  for (size_t at = 0; at <= bytes.size(); ++at) {
    expect_pieces_decode_as_joined(bytes, {at});
    if (::testing::Test::HasFatalFailure()) return;
  }
  expect_pieces_decode_as_joined(bytes, {0, 0, 3, 3, bytes.size()});  // empty pieces
}

// Corrupted answers (groups, bad tags, cut lengths, invalid UTF-8) in random
// pieces: refused or decoded exactly as the joined bytes are.
TEST(ListWire, CorruptedAnswerInPiecesDecodesAsJoined) {
  cri::ListContainersResponse answer;
  for (const char* id : {"p", "q", "r", "s"}) *answer.add_containers() = full_container(id);
  const std::string good = answer.SerializeAsString();
  std::mt19937 rng(11);
  int refused = 0, decoded = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string bytes = good;
    const int flips = static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    std::vector<size_t> cuts;
    const int n = static_cast<int>(rng() % 6);
    for (int c = 0; c < n; ++c) cuts.push_back(bytes.empty() ? 0 : rng() % (bytes.size() + 1));
    std::string error;
    ContainerList probe;
    (probe.assign(bytes, error) ? decoded : refused)++;
    expect_pieces_decode_as_joined(bytes, cuts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(refused, 500);
  EXPECT_GT(decoded, 500);
}

TEST(ListWire, ListsKeepTheirViewsWhenMoved) {
  cri::ListPodSandboxResponse answer;
  answer.add_items()->set_id("s1");
  std::string bytes = answer.SerializeAsString();
  SandboxList list;
  std::string error;
  ASSERT_TRUE(list.assign(bytes, error)) << error;
  SandboxList moved = std::move(list);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].id, "s1");
  EXPECT_EQ(moved.byte_size(), bytes.size());
}

}  // namespace
}  // namespace plegscope
