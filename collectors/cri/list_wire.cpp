#include "cri/list_wire.h"

#include <algorithm>
#include <cstdint>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>

#include "cri/kubernetes_labels.h"

namespace plegscope {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

// One field of a message: a varint or a length-delimited payload (a view).
struct FieldValue {
  bool is_bytes = false;
  std::string_view bytes;
  uint64_t varint = 0;
};

// Calls handle(number, value) for every varint and length-delimited field of
// `data`, in order, and skips the other wire types. false: malformed, or the
// handler refused a value.
template <typename Handler>
bool for_each_field(std::string_view data, Handler&& handle) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()), static_cast<int>(data.size()));
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return in.CurrentPosition() == static_cast<int>(data.size());
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    if (number == 0) return false;
    FieldValue value;
    switch (WireFormatLite::GetTagWireType(tag)) {
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        uint32_t length = 0;
        if (!in.ReadVarint32(&length)) return false;
        const auto at = static_cast<size_t>(in.CurrentPosition());
        if (length > data.size() - at) return false;
        value.is_bytes = true;
        value.bytes = data.substr(at, length);
        if (!in.Skip(static_cast<int>(length))) return false;
        break;
      }
      case WireFormatLite::WIRETYPE_VARINT:
        if (!in.ReadVarint64(&value.varint)) return false;
        break;
      default:
        if (!WireFormatLite::SkipField(&in, tag)) return false;
        continue;
    }
    if (!handle(number, value)) return false;
  }
}

bool utf8(std::string_view s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
}

// A proto3 string field: kept if it is one, refused if it is not UTF-8.
bool take_string(const FieldValue& v, std::string_view& out) {
  if (!v.is_bytes) return true;  // wrong wire type: an unknown field
  if (!utf8(v.bytes)) return false;
  out = v.bytes;
  return true;
}

// An enum field (open in proto3: unknown values are kept).
void take_enum(const FieldValue& v, int& out) {
  if (!v.is_bytes) out = static_cast<int32_t>(v.varint);
}

bool decode_sandbox_metadata(std::string_view data, SandboxEntry& e) {
  return for_each_field(data, [&](int number, const FieldValue& v) {
    switch (number) {
      case 1: return take_string(v, e.name);
      case 2: return take_string(v, e.uid);
      case 3: return take_string(v, e.namespace_);
      default: return true;
    }
  });
}

bool decode_sandbox(std::string_view data, SandboxEntry& e) {
  return for_each_field(data, [&](int number, const FieldValue& v) {
    switch (number) {
      case 1: return take_string(v, e.id);
      case 2: return !v.is_bytes || decode_sandbox_metadata(v.bytes, e);
      case 3: take_enum(v, e.state); return true;
      default: return true;
    }
  });
}

bool decode_container_metadata(std::string_view data, ContainerEntry& e) {
  return for_each_field(data, [&](int number, const FieldValue& v) {
    return number == 1 ? take_string(v, e.name) : true;
  });
}

// One entry of the labels map; a later entry for the same key wins.
bool decode_container_label(std::string_view data, ContainerEntry& e) {
  std::string_view key, value;
  bool ok = for_each_field(data, [&](int number, const FieldValue& v) {
    if (number == 1) return take_string(v, key);
    if (number == 2) return take_string(v, value);
    return true;
  });
  if (!ok) return false;
  if (key == kPodUidLabel) e.pod_uid_label = value;
  else if (key == kPodNameLabel) e.pod_name_label = value;
  else if (key == kPodNamespaceLabel) e.pod_namespace_label = value;
  else if (key == kContainerNameLabel) e.container_name_label = value;
  return true;
}

bool decode_container(std::string_view data, ContainerEntry& e) {
  return for_each_field(data, [&](int number, const FieldValue& v) {
    switch (number) {
      case 1: return take_string(v, e.id);
      case 2: return take_string(v, e.pod_sandbox_id);
      case 3: return !v.is_bytes || decode_container_metadata(v.bytes, e);
      case 6: take_enum(v, e.state); return true;
      case 8: return !v.is_bytes || decode_container_label(v.bytes, e);
      default: return true;
    }
  });
}

// Both answers are `repeated Item items = 1`.
template <typename Entry, typename DecodeItem>
bool decode_list(std::string_view bytes, std::vector<Entry>& out, std::string& error,
                 const char* what, DecodeItem decode_item) {
  out.clear();
  bool ok = for_each_field(bytes, [&](int number, const FieldValue& v) {
    if (number != 1 || !v.is_bytes) return true;
    Entry entry;
    if (!decode_item(v.bytes, entry)) {
      error = std::string("malformed ") + what + " in item " + std::to_string(out.size());
      return false;
    }
    out.push_back(entry);
    return true;
  });
  if (!ok && error.empty()) error = std::string("malformed list of ") + what;
  if (!ok) out.clear();
  return ok;
}

bool decode(std::string_view bytes, std::vector<SandboxEntry>& out, std::string& error) {
  return decode_sandbox_list(bytes, out, error);
}
bool decode(std::string_view bytes, std::vector<ContainerEntry>& out, std::string& error) {
  return decode_container_list(bytes, out, error);
}

// The answer's top level read across its pieces: only what a list of items
// holds (varint, fixed and length-delimited fields with valid tags). Anything
// else, malformed or not, makes next() give up, and the caller decodes the
// joined bytes instead, so every answer is judged by the one decoder.
class PieceReader {
 public:
  explicit PieceReader(const std::vector<std::string_view>& pieces) : pieces_(pieces) { skip_empty(); }

  bool at_end() const { return piece_ == pieces_.size(); }

  // The next field: false at the end or where the reader gives up (`gave_up`).
  // A length-delimited field is returned as a view when it lies in one piece,
  // else copied into `copy`.
  bool next(int& number, bool& is_bytes, std::string_view& value, std::string& copy, bool& gave_up) {
    gave_up = false;
    if (at_end()) return false;
    uint64_t tag = 0;
    if (!varint(tag, 5) || tag > UINT32_MAX) return give_up(gave_up);
    number = WireFormatLite::GetTagFieldNumber(static_cast<uint32_t>(tag));
    if (number == 0) return give_up(gave_up);
    is_bytes = false;
    switch (WireFormatLite::GetTagWireType(static_cast<uint32_t>(tag))) {
      case WireFormatLite::WIRETYPE_VARINT: {
        uint64_t ignored = 0;
        if (!varint(ignored, 10)) return give_up(gave_up);
        return true;
      }
      case WireFormatLite::WIRETYPE_FIXED64:
        if (!skip(8)) return give_up(gave_up);
        return true;
      case WireFormatLite::WIRETYPE_FIXED32:
        if (!skip(4)) return give_up(gave_up);
        return true;
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        uint64_t length = 0;
        if (!varint(length, 5) || length > INT32_MAX) return give_up(gave_up);
        if (!take(static_cast<size_t>(length), value, copy)) return give_up(gave_up);
        is_bytes = true;
        return true;
      }
      default:
        return give_up(gave_up);
    }
  }

 private:
  static bool give_up(bool& gave_up) {
    gave_up = true;
    return false;
  }

  void skip_empty() {
    while (piece_ < pieces_.size() && offset_ == pieces_[piece_].size()) {
      ++piece_;
      offset_ = 0;
    }
  }

  bool byte(uint8_t& b) {
    if (at_end()) return false;
    b = static_cast<uint8_t>(pieces_[piece_][offset_++]);
    skip_empty();
    return true;
  }

  bool varint(uint64_t& out, int max_bytes) {
    out = 0;
    for (int i = 0; i < max_bytes; ++i) {
      uint8_t b = 0;
      if (!byte(b)) return false;
      out |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) return true;
    }
    return false;
  }

  bool skip(size_t n) {
    while (n > 0) {
      if (at_end()) return false;
      const size_t here = std::min(n, pieces_[piece_].size() - offset_);
      offset_ += here;
      n -= here;
      skip_empty();
    }
    return true;
  }

  bool take(size_t n, std::string_view& out, std::string& copy) {
    if (n == 0) {
      out = {};
      return true;
    }
    if (at_end()) return false;
    if (pieces_[piece_].size() - offset_ >= n) {
      out = pieces_[piece_].substr(offset_, n);
      offset_ += n;
      skip_empty();
      return true;
    }
    copy.clear();
    copy.reserve(n);
    while (copy.size() < n) {
      if (at_end()) return false;
      const size_t here = std::min(n - copy.size(), pieces_[piece_].size() - offset_);
      copy.append(pieces_[piece_].data() + offset_, here);
      offset_ += here;
      skip_empty();
    }
    out = copy;
    return true;
  }

  const std::vector<std::string_view>& pieces_;
  size_t piece_ = 0;
  size_t offset_ = 0;
};

bool decode_item(std::string_view data, SandboxEntry& e) { return decode_sandbox(data, e); }
bool decode_item(std::string_view data, ContainerEntry& e) { return decode_container(data, e); }
const char* item_name(const SandboxEntry*) { return "PodSandbox"; }
const char* item_name(const ContainerEntry*) { return "Container"; }

template <typename Item, typename Entry>
bool serialize_then_decode(const ListAnswer<Item>& items, WireList<Entry>& out, std::string& error) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    for (const auto& item : items) write_message_field(1, item, coded);
  }
  return out.assign(std::move(bytes), error);
}

}  // namespace

bool decode_sandbox_list(std::string_view bytes, std::vector<SandboxEntry>& out, std::string& error) {
  return decode_list(bytes, out, error, "PodSandbox", decode_sandbox);
}

bool decode_container_list(std::string_view bytes, std::vector<ContainerEntry>& out,
                           std::string& error) {
  return decode_list(bytes, out, error, "Container", decode_container);
}

template <typename Entry>
bool WireList<Entry>::assign(std::string bytes, std::string& error) {
  auto storage = std::make_unique<Storage>();
  storage->bytes = std::move(bytes);
  storage->byte_size = storage->bytes.size();
  storage_ = std::move(storage);
  if (decode(storage_->bytes, entries_, error)) return true;
  storage_.reset();
  return false;
}

template <typename Entry>
bool WireList<Entry>::assign_pieces(const std::vector<std::string_view>& pieces,
                                    std::shared_ptr<const void> owner, std::string& error) {
  auto storage = std::make_unique<Storage>();
  storage->owner = std::move(owner);
  for (const auto& piece : pieces) storage->byte_size += piece.size();
  entries_.clear();
  PieceReader reader(pieces);
  int number = 0;
  bool is_bytes = false, gave_up = false;
  std::string_view item;
  std::string copy;
  while (reader.next(number, is_bytes, item, copy, gave_up)) {
    if (number != 1 || !is_bytes) continue;
    if (item.data() == copy.data() && !item.empty()) {
      storage->straddling.push_back(std::move(copy));
      item = storage->straddling.back();
      copy = std::string();
    }
    Entry entry;
    if (!decode_item(item, entry)) {
      error = std::string("malformed ") + item_name(static_cast<const Entry*>(nullptr)) + " in item " +
              std::to_string(entries_.size());
      entries_.clear();
      storage_.reset();
      return false;
    }
    entries_.push_back(entry);
  }
  if (gave_up) {
    std::string joined;
    joined.reserve(storage->byte_size);
    for (const auto& piece : pieces) joined.append(piece);
    return assign(std::move(joined), error);
  }
  storage_ = std::move(storage);
  return true;
}

void write_message_field(int field, const google::protobuf::MessageLite& message,
                         google::protobuf::io::CodedOutputStream& out) {
  WireFormatLite::WriteTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, &out);
  out.WriteVarint32(static_cast<uint32_t>(message.ByteSizeLong()));
  message.SerializeWithCachedSizes(&out);
}

template class WireList<SandboxEntry>;
template class WireList<ContainerEntry>;

bool to_wire_list(const ListAnswer<cri::PodSandbox>& items, SandboxList& out, std::string& error) {
  return serialize_then_decode(items, out, error);
}

bool to_wire_list(const ListAnswer<cri::Container>& items, ContainerList& out, std::string& error) {
  return serialize_then_decode(items, out, error);
}

}  // namespace plegscope
