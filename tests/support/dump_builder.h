// A test-only writer of Go heap dump byte streams, written from
// docs/dump-format.md (the runtime's own writers, per version), not from the
// reader. One method per record kind; the header is written by the
// constructor. Raw helpers let corrupt-input tests write anything at all.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dump/format.h"
#include "model/heap_model.h"

namespace goheap::testsupport {

// One field-list entry with the raw kind number the dump stores (see
// fieldKindCode for the per-version numbering).
struct Field {
  uint64_t kind = 1;
  uint64_t offset = 0;
};
using FieldList = std::vector<Field>;

// The raw kind number `kind` has in dumps of `version` (go1.3: 1 Ptr, 2 String,
// 3 Slice, 4 Iface, 5 Eface; later: 1 Ptr, 2 Iface, 3 Eface). String and Slice
// have no number after go1.3: asking for one aborts the test program.
uint64_t fieldKindCode(dump::FormatVersion version, dump::FieldKind kind);

// The header line of a version, newline included.
std::string_view headerLine(dump::FormatVersion version);

// "go1.3" ... for test messages (independent of the reader's own names).
std::string_view versionLabel(dump::FormatVersion version);

// Where a record landed in the stream.
struct Written {
  uint64_t begin = 0;      // offset of the record's tag
  uint64_t contents = 0;   // first byte of the contents (object, frame, data, bss), else 0
  uint64_t fieldlist = 0;  // first byte of the field list, else 0
  uint64_t end = 0;        // one past the record's last byte
};

struct ParamsSpec {
  std::optional<bool> big_endian{};    // default: the builder's byte order
  std::optional<uint64_t> ptr_size{};  // default: the builder's pointer size
  uint64_t hchan_size = 96;            // go1.3 only
  uint64_t heap_start = 0xc000000000;
  uint64_t heap_end = 0xc000400000;
  uint64_t thechar = '6';       // before go1.7
  std::string arch = "amd64";   // go1.7
  std::string second_string{};  // GOEXPERIMENT, or (go1.7, newer Go) the Go version
  uint64_t ncpu = 4;
};

struct TypeSpec {
  uint64_t addr = 0;
  uint64_t size = 0;
  std::string name{};
  bool data_is_pointer = false;
  FieldList fields{};  // go1.3 only
};

struct ItabSpec {
  uint64_t addr = 0;
  uint64_t type_addr = 0;        // go1.4 and later
  bool data_is_pointer = false;  // go1.3
};

struct ObjectSpec {
  uint64_t addr = 0;
  std::vector<uint8_t> contents{};
  FieldList fields{};      // go1.4 and later
  uint64_t type_addr = 0;  // go1.3
  uint64_t kind = 0;       // go1.3: 0 plain, 1 array, 2 channel, 127 conservative
};

struct GoroutineSpec {
  uint64_t addr = 0;
  uint64_t sp = 0;
  uint64_t goid = 0;
  uint64_t gopc = 0;
  uint64_t status = 4;
  bool is_system = false;
  bool is_background = false;
  uint64_t wait_since = 0;
  std::string wait_reason{};
  uint64_t ctxt = 0;
  uint64_t m_addr = 0;
  uint64_t top_defer = 0;
  uint64_t top_panic = 0;
};

struct FrameSpec {
  uint64_t sp = 0;
  uint64_t depth = 0;
  uint64_t child_sp = 0;
  std::vector<uint8_t> contents{};
  uint64_t entry_pc = 0;
  uint64_t pc = 0;
  uint64_t continpc = 0;
  std::string function{};
  FieldList fields{};
};

struct OtherRootSpec {
  std::string description{};
  uint64_t addr = 0;
};

struct FinalizerSpec {
  uint64_t obj = 0;
  uint64_t fn_val = 0;
  uint64_t fn_pc = 0;
  uint64_t arg_type = 0;
  uint64_t obj_type = 0;
};

struct OsThreadSpec {
  uint64_t addr = 0;
  uint64_t id = 0;
  uint64_t procid = 0;
};

struct SegmentSpec {
  uint64_t addr = 0;
  std::vector<uint8_t> contents{};
  FieldList fields{};
};

struct DeferSpec {
  uint64_t addr = 0;
  uint64_t goroutine = 0;
  uint64_t sp = 0;  // argp in go1.3/1.4
  uint64_t pc = 0;
  uint64_t fn_val = 0;
  uint64_t fn_pc = 0;
  uint64_t link = 0;
};

struct PanicSpec {
  uint64_t addr = 0;
  uint64_t goroutine = 0;
  uint64_t eface_type = 0;
  uint64_t eface_data = 0;
  uint64_t defer_addr = 0;  // go1.3: the running defer; 0 from go1.4 on
  uint64_t link = 0;
};

// The 281 uvarints of a memstats record in file order: Alloc .. PauseTotalNs
// (24), PauseNs[256], NumGC.
inline constexpr size_t kMemStatsValues = 24 + 256 + 1;
using MemStatsValues = std::array<uint64_t, kMemStatsValues>;

struct ProfileFrameSpec {
  std::string function{};
  std::string file{};
  uint64_t line = 0;
};

struct BucketSpec {
  uint64_t id = 0;
  uint64_t size = 0;
  std::vector<ProfileFrameSpec> frames{};  // leaf first
  uint64_t allocs = 0;
  uint64_t frees = 0;
};

struct AllocSampleSpec {
  uint64_t addr = 0;
  uint64_t bucket_id = 0;
};

class DumpBuilder {
 public:
  // Writes the version's header line unless `write_header` is false.
  explicit DumpBuilder(dump::FormatVersion version, uint32_t ptr_size = 8, bool big_endian = false,
                       bool write_header = true);

  dump::FormatVersion version() const { return version_; }
  uint32_t ptrSize() const { return ptr_size_; }
  bool bigEndian() const { return big_endian_; }

  // --- records ---
  Written params(const ParamsSpec& p = {});
  Written type(const TypeSpec& t);
  Written itab(const ItabSpec& i);
  Written object(const ObjectSpec& o);
  Written otherRoot(const OtherRootSpec& r);
  Written goroutine(const GoroutineSpec& g);
  Written frame(const FrameSpec& f);
  Written finalizer(const FinalizerSpec& f);
  Written queuedFinalizer(const FinalizerSpec& f);
  Written osThread(const OsThreadSpec& t);
  Written data(const SegmentSpec& s);
  Written bss(const SegmentSpec& s);
  Written deferRecord(const DeferSpec& d);
  Written panicRecord(const PanicSpec& p);
  Written memStats(const MemStatsValues& values);
  Written memProf(const BucketSpec& b);
  Written allocSample(const AllocSampleSpec& s);
  Written eof();

  // --- raw primitives, for corrupt input ---
  DumpBuilder& uvarint(uint64_t v);
  DumpBuilder& string(std::string_view s);
  DumpBuilder& bytesString(std::span<const uint8_t> s);  // length + bytes
  DumpBuilder& boolean(bool b);
  DumpBuilder& raw(std::span<const uint8_t> bytes);
  DumpBuilder& raw(std::string_view bytes);
  DumpBuilder& fieldList(const FieldList& fields);

  // --- pointer words in the dump's width and byte order ---
  // Stores `value` at `offset` of `buf` (which must be large enough).
  void putWord(std::vector<uint8_t>& buf, size_t offset, uint64_t value) const;
  // A buffer of the given words, one after the other.
  std::vector<uint8_t> words(std::initializer_list<uint64_t> values) const;

  uint64_t offset() const { return out_.size(); }
  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  Written segment(dump::Tag tag, const SegmentSpec& s);
  Written finalizerRecord(dump::Tag tag, const FinalizerSpec& f);
  void tag(dump::Tag t) { uvarint(static_cast<uint64_t>(t)); }

  dump::FormatVersion version_;
  uint32_t ptr_size_;
  bool big_endian_;
  std::vector<uint8_t> out_;
};

// The encoding of `v` as the dump writes it (1 to 10 bytes).
std::vector<uint8_t> encodeUvarint(uint64_t v);

}  // namespace goheap::testsupport
