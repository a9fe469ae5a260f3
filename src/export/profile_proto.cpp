#include "export/profile_proto.h"

#include <algorithm>

namespace goheap::exporting {

namespace {

// profile.proto's field numbers.
namespace profile {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
                   kStringTable = 6, kComment = 13, kDefaultSampleType = 14;
}
namespace value_type {
constexpr uint32_t kType = 1, kUnit = 2;
}
namespace sample {
constexpr uint32_t kLocationId = 1, kValue = 2;
}
namespace mapping {
constexpr uint32_t kId = 1, kFilename = 5, kBuildId = 6, kHasFunctions = 7, kHasFilenames = 8,
                   kHasLineNumbers = 9, kHasInlineFrames = 10;
}
namespace location {
constexpr uint32_t kId = 1, kMappingId = 2, kLine = 4;
}
namespace line {
constexpr uint32_t kFunctionId = 1, kLine = 2;
}
namespace function {
constexpr uint32_t kId = 1, kName = 2, kFilename = 4, kStartLine = 5;
}

constexpr uint32_t kWireVarint = 0, kWireBytes = 2;
// Compress in pieces of about this size, so the encoded profile is never
// held whole.
constexpr size_t kPendingLimit = size_t{1} << 18;

}  // namespace

// ---- ProtoBuffer -----------------------------------------------------------

void ProtoBuffer::varint(uint64_t v) {
  while (v >= 0x80) {
    buf_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  buf_.push_back(static_cast<char>(v));
}

void ProtoBuffer::uintField(uint32_t field, uint64_t v) {
  if (v == 0) return;
  tag(field, kWireVarint);
  varint(v);
}

void ProtoBuffer::bytesField(uint32_t field, std::string_view bytes) {
  tag(field, kWireBytes);
  varint(bytes.size());
  buf_.append(bytes);
}

void ProtoBuffer::packedField(uint32_t field, std::span<const uint64_t> values) {
  if (values.empty()) return;
  // Encode the values at the end of buf_ to learn their length, then move
  // them after the tag and length.
  const size_t start = buf_.size();
  for (uint64_t v : values) varint(v);
  scratch_.assign(buf_, start, std::string::npos);
  buf_.resize(start);
  bytesField(field, scratch_);
}

// ---- GzipSink --------------------------------------------------------------

GzipSink::GzipSink(Output& out) : out_(out), chunk_(size_t{1} << 16) {
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  ok_ =
      deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

GzipSink::~GzipSink() {
  if (ok_) deflateEnd(&z_);
}

void GzipSink::deflateInto(int flush) {
  do {
    z_.next_out = chunk_.data();
    z_.avail_out = static_cast<uInt>(chunk_.size());
    const int r = deflate(&z_, flush);
    if (r == Z_STREAM_ERROR) {
      ok_ = false;
      return;
    }
    out_.bytes(chunk_.data(), chunk_.size() - z_.avail_out);
    if (r == Z_STREAM_END) return;
  } while (z_.avail_out == 0 || (flush == Z_FINISH));
}

void GzipSink::write(std::string_view bytes) {
  if (!ok_) return;
  // avail_in is 32 bits: feed large inputs in pieces.
  while (!bytes.empty()) {
    const size_t n = std::min<size_t>(bytes.size(), size_t{1} << 30);
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z_.avail_in = static_cast<uInt>(n);
    deflateInto(Z_NO_FLUSH);
    bytes.remove_prefix(n);
  }
}

Status GzipSink::finish() {
  if (ok_) {
    z_.next_in = nullptr;
    z_.avail_in = 0;
    deflateInto(Z_FINISH);
  }
  if (!ok_) return Error("zlib could not compress the profile");
  return Status::success();
}

// ---- ProfileWriter ---------------------------------------------------------

size_t ProfileWriter::LocationKeyHash::operator()(const LocationKey& k) const {
  uint64_t h = k.function_id * 0x9e3779b97f4a7c15ULL;
  h ^= static_cast<uint64_t>(k.line) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
  h ^= k.mapping_id + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

int64_t ProfileWriter::str(std::string_view s) {
  if (auto it = strings_index_.find(s); it != strings_index_.end()) return it->second;
  const auto index = static_cast<int64_t>(strings_.size());
  auto [it, inserted] = strings_index_.emplace(std::string(s), index);
  strings_.emplace_back(it->first);
  return index;
}

void ProfileWriter::sampleType(std::string_view type, std::string_view unit) {
  sample_types_.emplace_back(str(type), str(unit));
}

uint64_t ProfileWriter::mapping(const ProfileMapping& m) {
  mappings_.push_back(m);
  return mappings_.size();
}

uint64_t ProfileWriter::function(std::string_view name, std::string_view file, int64_t start_line) {
  const int64_t n = str(name), f = str(file);
  const uint64_t key = static_cast<uint64_t>(n) << 32 | static_cast<uint64_t>(f);
  auto [it, inserted] = functions_index_.emplace(key, functions_.size() + 1);
  if (inserted) functions_.push_back({n, f, start_line});
  return it->second;
}

uint64_t ProfileWriter::location(uint64_t function_id, int64_t line, uint64_t mapping_id) {
  const LocationKey key{function_id, line, mapping_id};
  auto [it, inserted] = locations_index_.emplace(key, locations_.size() + 1);
  if (inserted) locations_.push_back(key);
  return it->second;
}

void ProfileWriter::emit(uint32_t field, const ProtoBuffer& message) {
  field_.clear();
  field_.bytesField(field, message.bytes());
  pending_ += field_.bytes();
  if (pending_.size() >= kPendingLimit) flushPending();
}

void ProfileWriter::flushPending() {
  gzip_.write(pending_);
  pending_.clear();
}

void ProfileWriter::sample(std::span<const uint64_t> locations, std::span<const int64_t> values) {
  static_assert(sizeof(int64_t) == sizeof(uint64_t));
  std::vector<uint64_t> v(values.begin(), values.end());  // two's complement, as proto int64
  message_.clear();
  message_.packedField(sample::kLocationId, locations);
  message_.packedField(sample::kValue, v);
  emit(profile::kSample, message_);
}

Status ProfileWriter::finish() {
  for (const auto& [type, unit] : sample_types_) {
    message_.clear();
    message_.intField(value_type::kType, type);
    message_.intField(value_type::kUnit, unit);
    emit(profile::kSampleType, message_);
  }
  for (size_t i = 0; i < mappings_.size(); i++) {
    const ProfileMapping& m = mappings_[i];
    message_.clear();
    message_.uintField(mapping::kId, i + 1);
    message_.intField(mapping::kFilename, str(m.filename));
    message_.intField(mapping::kBuildId, str(m.build_id));
    // Symbolized already: pprof must not look for the file to do it again.
    message_.boolField(mapping::kHasFunctions, true);
    message_.boolField(mapping::kHasFilenames, true);
    message_.boolField(mapping::kHasLineNumbers, true);
    message_.boolField(mapping::kHasInlineFrames, m.has_inline_frames);
    emit(profile::kMapping, message_);
  }
  ProtoBuffer line_message;
  for (size_t i = 0; i < locations_.size(); i++) {
    const LocationKey& l = locations_[i];
    line_message.clear();
    line_message.uintField(line::kFunctionId, l.function_id);
    line_message.intField(line::kLine, l.line);
    message_.clear();
    message_.uintField(location::kId, i + 1);
    message_.uintField(location::kMappingId, l.mapping_id);
    message_.bytesField(location::kLine, line_message.bytes());
    emit(profile::kLocation, message_);
  }
  for (size_t i = 0; i < functions_.size(); i++) {
    const Function& f = functions_[i];
    message_.clear();
    message_.uintField(function::kId, i + 1);
    message_.intField(function::kName, f.name);
    // No system_name: pprof "demangles" a function whose system_name equals
    // its name, dropping what looks like C++ parameters ("[2]func() int"
    // would become "[2]func int"); a different one it leaves alone.
    message_.intField(function::kFilename, f.file);
    message_.intField(function::kStartLine, f.start_line);
    emit(profile::kFunction, message_);
  }
  {
    ProtoBuffer comments;
    for (int64_t c : comments_) comments.intField(profile::kComment, c);
    pending_ += comments.bytes();
    ProtoBuffer default_type;
    default_type.intField(profile::kDefaultSampleType, default_type_);
    pending_ += default_type.bytes();
  }
  // The string table last: every message above may have added strings.
  // Entry 0 is "", which must be written even though it is empty.
  for (std::string_view s : strings_) {
    field_.clear();
    field_.bytesField(profile::kStringTable, s);
    pending_ += field_.bytes();
    if (pending_.size() >= kPendingLimit) flushPending();
  }
  flushPending();
  return gzip_.finish();
}

}  // namespace goheap::exporting
