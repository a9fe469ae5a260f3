// Writes pprof's profile.proto (github.com/google/pprof, proto/profile.proto)
// gzip-compressed, as `go tool pprof` reads it. The protobuf wire format is
// encoded by hand: varints and length-delimited fields are all it needs.
//
// Samples go out as they are added (protobuf lets a message's fields come in
// any order, and pprof resolves string indices after reading everything);
// strings, functions, locations and the mapping are interned and written by
// finish(). Memory is per distinct string, function and location.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <zlib.h>

#include "export/output.h"
#include "util/error.h"

namespace goheap::exporting {

// Protobuf wire-format encoding into a byte string.
class ProtoBuffer {
 public:
  void varint(uint64_t v);
  // A varint field; proto3 leaves out zero values, and so do we.
  void uintField(uint32_t field, uint64_t v);
  void intField(uint32_t field, int64_t v) { uintField(field, static_cast<uint64_t>(v)); }
  void boolField(uint32_t field, bool v) { uintField(field, v ? 1 : 0); }
  // A length-delimited field: a string, bytes or an embedded message.
  void bytesField(uint32_t field, std::string_view bytes);
  // A packed repeated varint field.
  void packedField(uint32_t field, std::span<const uint64_t> values);

  const std::string& bytes() const { return buf_; }
  void clear() { buf_.clear(); }

 private:
  void tag(uint32_t field, uint32_t wire_type) { varint(uint64_t{field} << 3 | wire_type); }
  std::string buf_;
  std::string scratch_;  // packed values, before their length is known
};

// Deflates into `out` as a gzip stream, a chunk at a time.
class GzipSink {
 public:
  explicit GzipSink(Output& out);
  GzipSink(const GzipSink&) = delete;
  GzipSink& operator=(const GzipSink&) = delete;
  ~GzipSink();

  void write(std::string_view bytes);
  Status finish();

 private:
  void deflateInto(int flush);
  Output& out_;
  z_stream z_{};
  bool ok_ = false;
  std::vector<unsigned char> chunk_;
};

struct ProfileMapping {
  std::string filename;
  std::string build_id;
  bool has_inline_frames = false;
};

class ProfileWriter {
 public:
  explicit ProfileWriter(Output& out) : gzip_(out) { str(""); }

  // Index of `s` in the string table.
  int64_t str(std::string_view s);

  // Declared before the first sample; their order is the order of values.
  void sampleType(std::string_view type, std::string_view unit);
  void defaultSampleType(std::string_view type) { default_type_ = str(type); }
  void comment(std::string_view text) { comments_.push_back(str(text)); }
  // The executable, as mapping 1; the only one.
  uint64_t mapping(const ProfileMapping& m);

  // Ids of the Function (by name and file) and Location (by function, line
  // and mapping), made on first use.
  uint64_t function(std::string_view name, std::string_view file, int64_t start_line);
  uint64_t location(uint64_t function_id, int64_t line, uint64_t mapping_id);

  // `locations` leaf first; one value per sample type.
  void sample(std::span<const uint64_t> locations, std::span<const int64_t> values);

  // Writes the tables and ends the gzip stream.
  Status finish();

 private:
  struct LocationKey {
    uint64_t function_id;
    int64_t line;
    uint64_t mapping_id;
    bool operator==(const LocationKey&) const = default;
  };
  struct LocationKeyHash {
    size_t operator()(const LocationKey& k) const;
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void emit(uint32_t field, const ProtoBuffer& message);
  void flushPending();

  GzipSink gzip_;
  ProtoBuffer field_, message_;
  std::string pending_;                    // encoded top-level fields not yet compressed
  std::vector<std::string_view> strings_;  // views into strings_index_'s keys
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> strings_index_;
  std::vector<std::pair<int64_t, int64_t>> sample_types_;
  int64_t default_type_ = 0;
  std::vector<int64_t> comments_;
  struct Function {
    int64_t name, file, start_line;
  };
  std::vector<Function> functions_;                         // id - 1
  std::unordered_map<uint64_t, uint64_t> functions_index_;  // name << 32 | file
  std::vector<LocationKey> locations_;                      // id - 1
  std::unordered_map<LocationKey, uint64_t, LocationKeyHash> locations_index_;
  std::vector<ProfileMapping> mappings_;
};

}  // namespace goheap::exporting
