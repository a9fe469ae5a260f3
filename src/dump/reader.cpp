#include "dump/reader.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include "dump/format.h"
#include "dump/varint.h"
#include "util/enum_names.h"
#include "util/large_vector.h"

namespace goheap::dump {

using namespace model;  // the reader fills the model's records

std::string_view tagName(uint64_t tag) {
  static constexpr std::string_view kNames[kTagCount] = {
      "EOF",    "object",    "other root", "type",      "goroutine",      "stack frame",
      "params", "finalizer", "itab",       "OS thread", "memstats",       "queued finalizer",
      "data",   "bss",       "defer",      "panic",     "memprof bucket", "alloc sample"};
  return tag < kTagCount ? kNames[tag] : std::string_view("unknown");
}

namespace {

// n values onto a column of Objects or of SecondColumns.
void appendValues(PackedColumn& to, const uint64_t* values, size_t n) {
  to.append(values, values + n);
}
void appendValues(std::vector<uint64_t>& to, const uint64_t* values, size_t n) {
  to.insert(to.end(), values, values + n);
}
void appendValues(PackedIds& to, const uint32_t* values, size_t n) {
  to.append(values, values + n);
}
void appendValues(std::vector<uint32_t>& to, const uint32_t* values, size_t n) {
  to.insert(to.end(), values, values + n);
}

// A bounds-checked forward cursor over the file. Failure is sticky: after the
// first problem every read returns zero and consumes nothing, and the record
// loop turns the recorded problem into one Error. This keeps each record's
// decoding straight-line while no read ever leaves the file.
class Cursor {
 public:
  Cursor(const uint8_t* begin, const uint8_t* end) : begin_(begin), p_(begin), end_(end) {}

  bool failed() const { return failed_; }
  uint64_t offset() const { return static_cast<uint64_t>(p_ - begin_); }
  uint64_t remaining() const { return static_cast<uint64_t>(end_ - p_); }
  bool atEnd() const { return p_ == end_; }
  const uint8_t* pos() const { return p_; }
  const uint8_t* end() const { return end_; }
  // Moves to a record boundary that a decoder without the cursor found.
  void seek(const uint8_t* p) { p_ = p; }
  uint64_t failOffset() const { return fail_offset_; }
  const std::string& failWhat() const { return fail_what_; }

  void fail(std::string what) { failAt(offset(), std::move(what)); }
  void failAt(uint64_t at, std::string what) {
    if (failed_) return;
    failed_ = true;
    fail_offset_ = at;
    fail_what_ = std::move(what);
  }

  uint64_t uvarint() {
    // Tags, field kinds, most field offsets and most lengths are one byte:
    // take those without the general loop.
    if (p_ < end_ && *p_ < 0x80 && !failed_) return *p_++;
    if (failed_) return 0;
    // Fast path: ten bytes are enough for any valid uvarint.
    if (remaining() >= 10) {
      uint64_t v = 0;
      const uint8_t* q = p_;
      for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t b = *q++;
        if (shift == 63 && b > 1) break;
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (b < 0x80) {
          p_ = q;
          return v;
        }
      }
      fail("malformed uvarint (overflows 64 bits)");
      return 0;
    }
    uint64_t v = 0;
    const uint8_t* q = p_;
    for (unsigned shift = 0; q < end_; shift += 7) {
      uint8_t b = *q++;
      if (shift == 63 && b > 1) {
        fail("malformed uvarint (overflows 64 bits)");
        return 0;
      }
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        p_ = q;
        return v;
      }
    }
    fail("the file ends inside this record (was the dump cut short?)");
    return 0;
  }

  bool boolean() {
    uint64_t at = offset();
    uint64_t v = uvarint();
    if (v > 1) failAt(at, "bool is " + std::to_string(v) + ", expected 0 or 1");
    return v == 1;
  }

  // A uvarint length followed by that many bytes; returns where they are.
  ByteRange range(std::string_view what) {
    uint64_t at = offset();
    uint64_t n = uvarint();
    if (failed_) return {};
    if (n > remaining()) {
      failAt(at, std::string(what) + " length " + std::to_string(n) + " exceeds the " +
                     std::to_string(remaining()) + " bytes left in the file");
      return {};
    }
    ByteRange r{offset(), n};
    p_ += n;
    return r;
  }

  std::string_view string(std::string_view what) {
    ByteRange r = range(what);
    return {reinterpret_cast<const char*>(begin_ + r.offset), static_cast<size_t>(r.size)};
  }

  // Skips bytes known to be present (the header line).
  void skip(uint64_t n) { p_ += n; }

 private:
  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  bool failed_ = false;
  uint64_t fail_offset_ = 0;
  std::string fail_what_;
};

struct Header {
  std::string_view text;
  FormatVersion version;
};

constexpr Header kHeaders[] = {
    {"go1.7 heap dump\n", FormatVersion::Go17},
    {"go1.6 heap dump\n", FormatVersion::Go15},  // Go 1.6 kept the go1.5 layout
    {"go1.5 heap dump\n", FormatVersion::Go15},
    {"go1.4 heap dump\n", FormatVersion::Go14},
    {"go1.3 heap dump\n", FormatVersion::Go13},
};

std::string_view archFromTheChar(uint64_t c) {
  switch (c) {
    case '5':
      return "arm";
    case '6':
      return "amd64";
    case '7':
      return "arm64";
    case '8':
      return "386";
    case '9':
      return "ppc64";
    case 'z':
      return "s390x";
    default:
      return "";
  }
}

// --- object records without per-byte bounds checks ----------------------
//
// Object records are nearly all of a dump's records and bytes. The Cursor
// checks every byte against the end of the file; here one check per record
// (and one per field) covers all its reads, and varints come out of one
// 8-byte load. Only ordinary records of go1.4 and later are taken: a
// one-byte tag 1, an address and length of at most 8 bytes each, field kinds
// 1 to 3 with offsets of at most 8 bytes. Anything else, valid or not, is
// left to the checked path, which then decides and words any error exactly
// as before.

// A little-endian load of 8 bytes that may be unaligned.
inline uint64_t load64le(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// Decodes a uvarint of at most 8 bytes at p (8 bytes must be readable);
// returns its length, or 0 if it is longer.
inline unsigned shortUvarint(const uint8_t* p, uint64_t& v) {
  const uint64_t w = load64le(p);
  const uint64_t last = ~w & 0x8080808080808080ull;  // bytes without a continuation bit
  if (last == 0) return 0;
  // Keep the bytes up to and including the first without one, drop the flags,
  // then close the 7-bit groups up in pairs: 8 x 7 -> 4 x 14 -> 2 x 28 -> 56 bits.
  uint64_t x = w & (last ^ (last - 1)) & 0x7f7f7f7f7f7f7f7full;
  x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
  x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
  x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
  v = x;
  return static_cast<unsigned>(std::countr_zero(last) + 1) / 8;
}

// Bytes that must remain at a record's start for the unchecked reads of its
// tag, address and length: 1 + 8 + 8.
constexpr uint64_t kObjectHeadSlack = 17;

// --- field lists into pointer layouts -------------------------------------
//
// Every field list becomes a layout of HeapModel::layouts (model/pointer_layouts.h),
// so that nothing after the reader decodes one. Objects of one type write
// the same bytes as their field list: a list's layout is found by its bytes,
// and decoded only the first time they are seen.

class FieldLists {
 public:
  FieldLists(FormatVersion version, uint32_t ptr_size, PointerLayouts& out)
      : version_(version), ptr_(ptr_size), builder_(out) {}

  // The layout of an object's field list: the bytes [list, end) before its
  // terminating 0, which the reader checked to lie within the object's
  // `size` bytes (so that the layout does not depend on the size).
  uint32_t objectLayout(const uint8_t* list, const uint8_t* end, uint64_t size) {
    if (list == end) return PointerLayouts::kNoPointers;
    const std::string_view key(reinterpret_cast<const char*>(list), end - list);
    // The objects of a span, one after another, mostly share one type.
    if (key == last_) return last_layout_;
    auto [it, inserted] = by_bytes_.try_emplace(key, PointerLayouts::kNoPointers);
    if (inserted) it->second = layoutOf(list, size);
    last_ = key;
    last_layout_ = it->second;
    return it->second;
  }

  // The layout of the checked field list at `list` over `limit` bytes of
  // contents (a frame's, a segment's, a go1.3 type's), leaving out the
  // words that lie beyond them: a frame's or segment's list may name such
  // fields.
  uint32_t rangeLayout(const uint8_t* list, uint64_t limit) { return layoutOf(list, limit); }

  // The same for a list with at least 8 bytes readable from `list` (the
  // unchecked decoder's, which checked that 9 follow the list's end). A
  // list of at most 8 bytes is then compared with the last one as one word.
  uint32_t objectLayoutPadded(const uint8_t* list, const uint8_t* end, uint64_t size) {
    const auto len = static_cast<size_t>(end - list);
    if (len == 0) return PointerLayouts::kNoPointers;
    if (len > 8) return objectLayout(list, end, size);
    const uint64_t key = load64le(list) & (~uint64_t{0} >> (64 - 8 * len));
    if (len == short_len_ && key == short_key_) return short_layout_;
    short_len_ = len;
    short_key_ = key;
    short_layout_ = objectLayout(list, end, size);
    return short_layout_;
  }

  PointerLayoutBuilder& builder() { return builder_; }

 private:
  // The layout of the words of the list at p that lie within `limit` bytes,
  // in order. For interfaces both words (the type or itab word points
  // outside the heap).
  uint32_t layoutOf(const uint8_t* p, uint64_t limit) {
    if (limit < ptr_) return PointerLayouts::kNoPointers;
    const uint64_t last = limit - ptr_;  // highest offset whose word fits
    bool done = false;
    bool second_word = false;  // an interface's second word is next
    uint64_t off = 0;
    return builder_.addFrom([&](uint64_t& slot) {
      if (second_word) {
        second_word = false;
        if (off < last && off + ptr_ <= last) {
          slot = off + ptr_;
          return true;
        }
      }
      while (!done) {
        const uint64_t kind = decodeUvarintUnchecked(p);
        if (kind == 0) break;
        off = decodeUvarintUnchecked(p);
        if (off > last) continue;  // beyond the contents, and so is any second word
        const FieldKind k = normalizeFieldKind(version_, kind);
        second_word = k == FieldKind::Iface || k == FieldKind::Eface;
        slot = off;
        return true;
      }
      done = true;
      return false;
    });
  }

  FormatVersion version_;
  uint32_t ptr_;
  PointerLayoutBuilder builder_;
  std::unordered_map<std::string_view, uint32_t> by_bytes_;
  std::string_view last_;
  uint32_t last_layout_ = PointerLayouts::kNoPointers;
  size_t short_len_ = 0;  // objectLayoutPadded's last list, as a word
  uint64_t short_key_ = 0;
  uint32_t short_layout_ = PointerLayouts::kNoPointers;
};

struct ObjectRecord {
  uint64_t addr;
  const uint8_t* contents;
  uint64_t size;
  uint64_t slots;  // pointer words its field list names
  // Where its field list ends: the list is [contents + size, list_end),
  // followed by the terminating 0.
  const uint8_t* list_end;
};

// Decodes the ordinary object record at p, if it is one and lies wholly
// before `end`; returns where the next record starts, or nullptr. A record
// taken here is one the checked path accepts with the same result.
inline const uint8_t* decodeOrdinaryObject(const uint8_t* p, const uint8_t* end, uint32_t ptr,
                                           ObjectRecord& r) {
  if (end - p < static_cast<ptrdiff_t>(kObjectHeadSlack) || p[0] != 1) return nullptr;
  const unsigned addr_len = shortUvarint(p + 1, r.addr);
  if (addr_len == 0) return nullptr;
  const uint8_t* q = p + 1 + addr_len;
  const unsigned size_len = shortUvarint(q, r.size);
  if (size_len == 0) return nullptr;
  q += size_len;
  if (r.size > static_cast<uint64_t>(end - q)) return nullptr;
  r.contents = q;
  q += r.size;
  uint64_t slots = 0;
  for (;;) {
    // A kind byte, an offset of up to 8 bytes read as one load.
    if (end - q < 9) return nullptr;
    const uint64_t kind = q[0];
    if (kind == 0) break;
    uint64_t off = q[1];
    unsigned len = 2;
    if (off >= 0x80) {
      len = 1 + shortUvarint(q + 1, off);
      if (len == 1) return nullptr;
    }
    // Kind 1 is a pointer word; 2 and 3 (interfaces) are two words. Kind
    // bytes of 0x80 and up begin longer varints: not ordinary either.
    const uint64_t words = kind == 1 ? 1 : 2;
    if (kind > 3 || off + words * ptr > r.size) return nullptr;
    slots += words;
    q += len;
  }
  r.slots = slots;
  r.list_end = q;
  return q + 1;
}

// A few thousand decoded records on their way into the object columns, so
// that the tight loop stores to a small buffer and the columns grow by
// whole batches.
struct ObjectBatch {
  static constexpr size_t kCapacity = 1024;
  uint64_t addr[kCapacity];
  uint32_t offset_low[kCapacity];  // offsets by halves, as OffsetColumn keeps them
  uint16_t offset_high[kCapacity];
  uint64_t offset_high_bits = 0;  // any bits of the high halves
  uint64_t size[kCapacity];
  uint32_t layout[kCapacity];
  size_t count = 0;
  uint64_t slots = 0;

  // Decodes ordinary object records from p until the batch is full, a
  // record is not ordinary, or the next record would start at or after
  // `stop`; returns where it stopped, always a record boundary.
  const uint8_t* fill(const uint8_t* base, const uint8_t* p, const uint8_t* stop,
                      const uint8_t* end, uint32_t ptr, FieldLists& lists) {
    ObjectRecord r;
    const uint8_t* ahead = p + 2048;
    while (count < kCapacity && p < stop) {
      while (ahead < p + 2048) {
        __builtin_prefetch(ahead);
        ahead += 64;
      }
      const uint8_t* next = decodeOrdinaryObject(p, end, ptr, r);
      if (next == nullptr) break;
      addr[count] = r.addr;
      const auto offset = static_cast<uint64_t>(r.contents - base);
      offset_low[count] = static_cast<uint32_t>(offset);
      offset_high[count] = static_cast<uint16_t>(offset >> 32);
      offset_high_bits |= offset >> 32;
      size[count] = r.size;
      layout[count] = lists.objectLayoutPadded(r.contents + r.size, r.list_end, r.size);
      count++;
      slots += r.slots;
      p = next;
    }
    return p;
  }

  // Into Objects or SecondColumns.
  template <class Columns>
  void appendTo(Columns& to) {
    appendValues(to.addr, addr, count);
    to.offset.append(offset_low, offset_high, count, offset_high_bits != 0);
    offset_high_bits = 0;
    appendValues(to.size, size, count);
    appendValues(to.layout, layout, count);
    count = 0;
  }
};

// Object records take at least 16 bytes in any real dump (tag, address,
// length, a size class of 8 bytes or more, the field list's end), so
// `bytes` / 16 bounds the count of those in `bytes`. The guess stays within
// a quarter of physical memory so that reserving it cannot fail where the
// objects would have fit.
uint64_t objectCountBound(uint64_t bytes) {
  constexpr uint64_t kMinObjectRecordBytes = 16;
  uint64_t guess = bytes / kMinObjectRecordBytes;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    const uint64_t memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
    guess = std::min(guess, memory / 4 / sizeof(uint64_t));
  }
  return guess;
}

// --- the second thread ----------------------------------------------------
//
// The object records of a dump are one long run, most of the file. What is
// left once the params are known is cut into pieces at even byte offsets.
// The first thread decodes from the start, as it would alone; a second
// thread takes pieces from the end backwards. In its piece it finds a record
// boundary (a position where a few ordinary object records follow one
// another) and decodes ordinary object records from there into the piece's
// own columns, up to where the piece above it begins, or to a record it does
// not take. The two threads meet in the middle, wherever their speeds put
// it: records differ in cost more than bytes do.
//
// When the first thread arrives exactly at a piece's boundary, the piece's
// records are the ones it would have decoded next, so it takes their columns
// and goes on from where the piece stopped. If it steps past the boundary
// (a false one: bytes inside some object's contents that looked like
// records) the piece is dropped, and the first thread decodes on as if there
// were no second thread. Either way the result and every error are the
// sequential reader's: the second thread only takes records the checked path
// accepts in the same way, and reports nothing.

// Records in a row that must decode before a position counts as a boundary.
constexpr int kBoundaryRecords = 4;
// How far past its piece's start the second thread looks for a boundary.
constexpr uint64_t kBoundarySearchBytes = 1 << 20;
// Below this many bytes of objects, starting a thread costs more than it saves.
constexpr uint64_t kMinSplitBytes = 1 << 20;
// Pieces of about this size, at most kMaxPieces. Where the threads meet, the
// first waits for the second to finish its last piece: half a piece on
// average, so smaller is better, down to where finding boundaries costs.
constexpr uint64_t kPieceBytes = 8 << 20;
constexpr uint64_t kMaxPieces = 64;

struct Piece {
  uint64_t search_from = 0;  // where the boundary search starts
  uint64_t start = 0;        // the boundary found; 0 if none (or the piece is the first thread's)
  uint64_t stop = 0;         // the boundary where its decoding stopped
  size_t first = 0;          // its records in SecondColumns: [first, first + count)
  size_t count = 0;
  uint64_t slots = 0;
};

// The second thread's records, piece after piece from the end. One set of
// columns for all, reserved once: new memory costs a page fault per page
// touched (a hypervisor trap, in a virtual machine), and pieces of their own
// would each fault in memory of their own.
struct SecondColumns {
  std::vector<uint64_t> addr;
  OffsetColumn offset;
  std::vector<uint64_t> size;
  std::vector<uint32_t> layout;  // into `layouts`, the second thread's own
  PointerLayouts layouts;
};

// Which pieces each thread owns: the first thread's current piece in the
// high half, the second thread's lowest piece in the low half. Each thread
// moves its own end towards the other's, and only while a piece lies
// between them, so no piece is ever both's. The last piece is the second
// thread's from the start, however late it starts: with two pieces (as
// tests ask for) who does what never depends on timing.
class PieceOwners {
 public:
  explicit PieceOwners(uint32_t pieces) : packed_(pieces - 1) {}

  // The first thread enters the next piece; false if the second owns it.
  bool firstAdvance() {
    uint64_t v = packed_.load();
    do {
      if ((v >> 32) + 1 >= (v & 0xffffffffu)) return false;
    } while (!packed_.compare_exchange_weak(v, v + (uint64_t{1} << 32)));
    return true;
  }

  // The second thread takes the piece below its lowest; returns its index,
  // or -1 when the first thread is there already.
  int64_t secondTake() {
    uint64_t v = packed_.load();
    do {
      if ((v >> 32) + 1 >= (v & 0xffffffffu)) return -1;
    } while (!packed_.compare_exchange_weak(v, v - 1));
    return static_cast<int64_t>((v & 0xffffffffu) - 1);
  }

  // The second thread's lowest piece; stable once it has stopped.
  uint32_t secondLowest() const { return static_cast<uint32_t>(packed_.load() & 0xffffffffu); }

 private:
  std::atomic<uint64_t> packed_;
};

// An address a real object could have: inside the heap's range when the
// params give one.
bool plausibleObjectAddress(const Params& params, uint64_t addr) {
  if (params.heap_end > params.heap_start) {
    return addr >= params.heap_start && addr < params.heap_end;
  }
  return addr != 0;
}

// The first position in [from, limit) where kBoundaryRecords ordinary object
// records with plausible addresses follow one another; nullptr if none.
const uint8_t* findObjectBoundary(const uint8_t* from, const uint8_t* limit, const uint8_t* end,
                                  const Params& params) {
  for (const uint8_t* p = from; p < limit; p++) {
    p = static_cast<const uint8_t*>(std::memchr(p, 1, limit - p));  // the object tag
    if (p == nullptr) return nullptr;
    const uint8_t* q = p;
    int found = 0;
    ObjectRecord r;
    while (found < kBoundaryRecords) {
      q = decodeOrdinaryObject(q, end, params.ptr_size, r);
      if (q == nullptr || !plausibleObjectAddress(params, r.addr)) break;
      found++;
    }
    if (found == kBoundaryRecords) return p;
  }
  return nullptr;
}

// The second thread's work (see above); gives up early when asked to stop.
void decodePiecesFromTheEnd(std::stop_token stop, const uint8_t* base, const uint8_t* end,
                            FormatVersion version, Params params, std::vector<Piece>& pieces,
                            PieceOwners& owners, SecondColumns& out) {
  FieldLists lists(version, params.ptr_size, out.layouts);
  // Where the piece above the current one begins: its decoding stops there.
  const uint8_t* above = end;
  bool reserved = false;
  for (int64_t j = static_cast<int64_t>(pieces.size()) - 1; j > 0 && !stop.stop_requested();
       j = owners.secondTake()) {
    Piece& piece = pieces[static_cast<size_t>(j)];
    const uint8_t* from = base + piece.search_from;
    const uint8_t* limit = from + std::min<uint64_t>(kBoundarySearchBytes, above - from);
    const uint8_t* p = findObjectBoundary(from, limit, end, params);
    if (p == nullptr) continue;
    if (!reserved) {
      // Enough for every piece down to the first (the first thread's).
      const uint64_t bound =
          objectCountBound(static_cast<uint64_t>(end - base - pieces[0].search_from));
      reserveLarge(out.addr, bound);
      out.offset.reserve(bound);
      reserveLarge(out.size, bound);
      reserveLarge(out.layout, bound);
      reserved = true;
    }
    piece.start = static_cast<uint64_t>(p - base);
    piece.first = out.addr.size();
    ObjectBatch batch;
    for (;;) {
      p = batch.fill(base, p, above, end, params.ptr_size, lists);
      const bool full = batch.count == ObjectBatch::kCapacity;
      batch.appendTo(out);
      if (!full || stop.stop_requested()) break;
    }
    piece.count = out.addr.size() - piece.first;
    piece.slots = batch.slots;
    piece.stop = static_cast<uint64_t>(p - base);
    above = base + piece.start;
  }
}

// Decodes records into a heap model. One method per record kind; each reads exactly
// the fields its version writes.
class RecordReader {
 public:
  RecordReader(model::HeapModel& dump, Cursor& cur)
      : dump_(dump), facts_(*dump.heap_dump), cur_(cur) {}

  Status run(const ReadOptions& options);

 private:
  Status records(const ReadOptions& options);
  // Starts the second thread if the file is worth it; called once the params
  // are known, which in every Go version is before the objects.
  void startSecondHalf(const ReadOptions& options);
  // Called at the first record boundary at or after split_from_: enters the
  // next piece, or meets the second thread and takes its pieces that begin
  // here.
  void reachPiece(ReadStats* stats);
  bool needParams(uint64_t tag);
  // Checks a field list at the cursor and moves past it; returns where it
  // starts. Counts the pointer words it names into `slots`. Offsets beyond
  // `limit` are an error when `strict`, else noted once as a warning. With
  // `increasing`, offsets must grow: a go1.3 type's list is applied to every
  // element of an array, and a list repeating one offset would multiply that
  // work without bound.
  const uint8_t* fieldList(uint64_t limit, bool strict, uint64_t& slots, bool increasing = false);
  // The layout of the checked list at `list` over `limit` bytes of contents.
  uint32_t rangeLayout(const uint8_t* list, uint64_t limit);
  // Object i's layout from its go1.3 type and kind.
  uint32_t go13Layout(size_t i);
  // Layout k of the second thread's, as a layout of the model's.
  uint32_t secondLayout(uint32_t k);

  void params();
  // Takes ordinary object records by the unchecked decoder up to the first
  // record boundary at or after `stop`.
  void fastObjects(uint64_t stop);
  void object();
  void type();
  void itab();
  void otherRoot();
  void goroutine();
  void stackFrame();
  void finalizer(bool queued);
  void osThread();
  void segment(Segment& seg, std::string_view name);
  void deferRecord();
  void panicRecord();
  void memStats();
  void memProf();
  void allocSample();
  void resolveGo13Types();
  void reserveObjects(uint64_t file_size);

  model::HeapModel& dump_;
  model::HeapDumpFacts& facts_;  // *dump_.heap_dump
  Cursor& cur_;
  bool have_params_ = false;
  bool warned_frame_fields_ = false;
  bool split_considered_ = false;
  bool second_joined_ = false;
  // The first thread's current piece until the threads meet; after, the
  // next of the second thread's pieces to take or drop.
  size_t piece_ = 0;
  // Where the first thread next stops for the pieces: the next piece's
  // search start, or once the threads met the next piece's boundary;
  // UINT64_MAX when there is nothing more to meet.
  uint64_t split_from_ = UINT64_MAX;
  std::vector<Piece> pieces_;
  std::unique_ptr<PieceOwners> owners_;
  SecondColumns second_;
  // The model's id of each of second_.layouts taken so far, or UINT32_MAX.
  std::vector<uint32_t> second_layout_ids_;
  // Set once the params give the pointer size.
  std::optional<FieldLists> lists_;
  std::vector<uint64_t> go13_element_;  // go13Layout's scratch
  std::jthread second_thread_;          // declared last: joined before the pieces go
};

const uint8_t* RecordReader::fieldList(uint64_t limit, bool strict, uint64_t& slots,
                                       bool increasing) {
  const uint8_t* start = cur_.pos();
  bool first = true;
  uint64_t previous = 0;
  const uint64_t max_kind = maxFieldKind(facts_.version);
  const uint32_t ptr = dump_.params.ptr_size;
  for (;;) {
    uint64_t at = cur_.offset();
    uint64_t kind = cur_.uvarint();
    if (cur_.failed() || kind == 0) break;
    if (kind > max_kind) {
      cur_.failAt(at, "unknown field kind " + std::to_string(kind));
      break;
    }
    uint64_t off = cur_.uvarint();
    if (cur_.failed()) break;
    if (increasing && !first && off <= previous) {
      cur_.failAt(at, "field offset " + std::to_string(off) + " does not follow " +
                          std::to_string(previous) + " (offsets must increase)");
      break;
    }
    first = false;
    previous = off;
    FieldKind k = normalizeFieldKind(facts_.version, kind);
    uint64_t words = (k == FieldKind::Iface || k == FieldKind::Eface) ? 2 : 1;
    bool fits = limit >= words * ptr && off <= limit - words * ptr;
    if (!fits) {
      if (strict) {
        cur_.failAt(at, "field at offset " + std::to_string(off) + " lies beyond the " +
                            std::to_string(limit) + " bytes of contents");
        break;
      }
      if (!warned_frame_fields_) {
        warned_frame_fields_ = true;
        dump_.warnings.push_back("at byte offset " + std::to_string(at) +
                                 ": a field list names offset " + std::to_string(off) +
                                 " beyond its " + std::to_string(limit) +
                                 " bytes of contents; such fields are ignored");
      }
      continue;
    }
    slots += words;
  }
  return start;
}

bool RecordReader::needParams(uint64_t tag) {
  if (have_params_) return true;
  cur_.fail(std::string(tagName(tag)) + " record before the params record");
  return false;
}

void RecordReader::params() {
  if (have_params_) {
    cur_.fail("a second params record");
    return;
  }
  Params& p = dump_.params;
  p.big_endian = cur_.boolean();
  uint64_t at = cur_.offset();
  uint64_t ptr = cur_.uvarint();
  if (!cur_.failed() && ptr != 4 && ptr != 8) {
    cur_.failAt(at, "pointer size " + std::to_string(ptr) + ", expected 4 or 8");
    return;
  }
  p.ptr_size = static_cast<uint32_t>(ptr);
  if (facts_.version == FormatVersion::Go13) facts_.hchan_size = cur_.uvarint();
  p.heap_start = cur_.uvarint();
  p.heap_end = cur_.uvarint();
  if (facts_.version == FormatVersion::Go17) {
    p.arch = cur_.string("GOARCH");
    std::string_view second = cur_.string("Go version");
    // Early go1.7-era dumps wrote GOEXPERIMENT here; current Go writes its version.
    if (second.starts_with("go") || second.starts_with("devel")) {
      p.go_version = second;
    } else {
      p.experiment = second;
    }
  } else {
    facts_.thechar = cur_.uvarint();
    p.arch = archFromTheChar(facts_.thechar);
    p.experiment = cur_.string("GOEXPERIMENT");
  }
  p.ncpu = cur_.uvarint();
  have_params_ = !cur_.failed();
  if (have_params_) lists_.emplace(facts_.version, p.ptr_size, dump_.layouts);
}

uint32_t RecordReader::rangeLayout(const uint8_t* list, uint64_t limit) {
  return lists_->rangeLayout(list, limit);
}

uint32_t RecordReader::secondLayout(uint32_t k) {
  if (second_layout_ids_.size() <= k) second_layout_ids_.resize(k + 1, UINT32_MAX);
  uint32_t& id = second_layout_ids_[k];
  if (id == UINT32_MAX) id = lists_->builder().copy(second_.layouts, k);
  return id;
}

void RecordReader::fastObjects(uint64_t stop) {
  const uint8_t* base = cur_.pos() - cur_.offset();
  Objects& o = dump_.objects;
  ObjectBatch batch;
  const uint8_t* p = cur_.pos();
  for (;;) {
    const uint8_t* next =
        batch.fill(base, p, base + stop, cur_.end(), dump_.params.ptr_size, *lists_);
    const size_t taken = batch.count;
    batch.appendTo(o);
    facts_.record_counts[static_cast<size_t>(Tag::Object)] += taken;
    p = next;
    if (taken < ObjectBatch::kCapacity) break;
  }
  dump_.total_field_entries += batch.slots;
  cur_.seek(p);
}

void RecordReader::object() {
  Objects& o = dump_.objects;
  uint64_t addr = cur_.uvarint();
  if (facts_.version == FormatVersion::Go13) {
    uint64_t type_addr = cur_.uvarint();
    uint64_t at = cur_.offset();
    uint64_t kind = cur_.uvarint();
    if (!cur_.failed() && kind != 0 && kind != 1 && kind != 2 && kind != 127) {
      cur_.failAt(at, "unknown object kind " + std::to_string(kind));
    }
    ByteRange contents = cur_.range("object contents");
    if (cur_.failed()) return;
    facts_.object_type_addr.push_back(type_addr);
    facts_.object_kind.push_back(static_cast<uint8_t>(kind));
    o.addr.push_back(addr);
    o.offset.push_back(contents.offset);
    o.size.push_back(contents.size);
    return;
  }
  ByteRange contents = cur_.range("object contents");
  uint64_t slots = 0;
  const uint8_t* list = fieldList(contents.size, /*strict=*/true, slots);
  if (cur_.failed()) return;
  o.addr.push_back(addr);
  o.offset.push_back(contents.offset);
  o.size.push_back(contents.size);
  // The cursor is past the list's terminating 0.
  o.layout.push_back(lists_->objectLayout(list, cur_.pos() - 1, contents.size));
  dump_.total_field_entries += slots;
}

void RecordReader::type() {
  TypeRecord t;
  t.addr = cur_.uvarint();
  t.size = cur_.uvarint();
  t.name = cur_.string("type name");
  t.data_is_pointer = cur_.boolean();
  if (facts_.version == FormatVersion::Go13) {
    uint64_t slots = 0;
    const uint8_t* list = fieldList(t.size, /*strict=*/true, slots, /*increasing=*/true);
    if (!cur_.failed()) t.layout = rangeLayout(list, t.size);
  }
  if (!cur_.failed()) dump_.types.push_back(t);
}

void RecordReader::itab() {
  ItabRecord it;
  it.addr = cur_.uvarint();
  if (facts_.version == FormatVersion::Go13) {
    it.data_is_pointer = cur_.boolean();
  } else {
    it.type_addr = cur_.uvarint();
  }
  if (!cur_.failed()) dump_.itabs.push_back(it);
}

void RecordReader::otherRoot() {
  OtherRoot r;
  r.description = cur_.string("root description");
  r.addr = cur_.uvarint();
  if (!cur_.failed()) dump_.other_roots.push_back(r);
}

void RecordReader::goroutine() {
  Goroutine g;
  g.addr = cur_.uvarint();
  g.sp = cur_.uvarint();
  g.goid = cur_.uvarint();
  g.gopc = cur_.uvarint();
  g.status = cur_.uvarint();
  g.is_system = cur_.boolean();
  g.is_background = cur_.boolean();
  g.wait_since = cur_.uvarint();
  g.wait_reason = cur_.string("wait reason");
  g.ctxt = cur_.uvarint();
  g.m_addr = cur_.uvarint();
  g.top_defer = cur_.uvarint();
  g.top_panic = cur_.uvarint();
  g.first_frame = static_cast<uint32_t>(dump_.frames.size());
  if (!cur_.failed()) dump_.goroutines.push_back(g);
}

void RecordReader::stackFrame() {
  StackFrame f;
  f.sp = cur_.uvarint();
  f.depth = cur_.uvarint();
  f.child_sp = cur_.uvarint();
  f.contents = cur_.range("frame contents");
  f.entry_pc = cur_.uvarint();
  f.pc = cur_.uvarint();
  f.continpc = cur_.uvarint();
  f.function = cur_.string("function name");
  uint64_t slots = 0;
  const uint8_t* list = fieldList(f.contents.size, /*strict=*/false, slots);
  if (cur_.failed()) return;
  f.layout = rangeLayout(list, f.contents.size);
  // The runtime writes each goroutine's frames right after it.
  if (!dump_.goroutines.empty()) {
    Goroutine& g = dump_.goroutines.back();
    if (g.first_frame + g.frame_count == dump_.frames.size()) {
      f.goroutine = static_cast<uint32_t>(dump_.goroutines.size() - 1);
      g.frame_count++;
    }
  }
  if (f.goroutine == UINT32_MAX && dump_.warnings.size() < 100) {
    dump_.warnings.push_back("a stack frame (" + std::string(f.function) +
                             ") follows no goroutine record");
  }
  dump_.frames.push_back(f);
}

void RecordReader::finalizer(bool queued) {
  Finalizer f;
  f.obj = cur_.uvarint();
  f.fn_val = cur_.uvarint();
  f.fn_pc = cur_.uvarint();
  f.arg_type = cur_.uvarint();
  f.obj_type = cur_.uvarint();
  f.queued = queued;
  if (!cur_.failed()) dump_.finalizers.push_back(f);
}

void RecordReader::osThread() {
  OsThread t;
  t.addr = cur_.uvarint();
  t.id = cur_.uvarint();
  t.procid = cur_.uvarint();
  if (!cur_.failed()) dump_.threads.push_back(t);
}

void RecordReader::segment(Segment& seg, std::string_view name) {
  if (seg.present) {
    cur_.fail("a second " + std::string(name) + " record");
    return;
  }
  seg.addr = cur_.uvarint();
  seg.contents = cur_.range(std::string(name) + " contents");
  uint64_t slots = 0;
  const uint8_t* list = fieldList(seg.contents.size, /*strict=*/false, slots);
  seg.present = !cur_.failed();
  if (seg.present) seg.layout = rangeLayout(list, seg.contents.size);
}

void RecordReader::deferRecord() {
  Defer d;
  d.addr = cur_.uvarint();
  d.goroutine = cur_.uvarint();
  d.sp = cur_.uvarint();
  d.pc = cur_.uvarint();
  d.fn_val = cur_.uvarint();
  d.fn_pc = cur_.uvarint();
  d.link = cur_.uvarint();
  if (!cur_.failed()) dump_.defers.push_back(d);
}

void RecordReader::panicRecord() {
  Panic p;
  p.addr = cur_.uvarint();
  p.goroutine = cur_.uvarint();
  p.eface_type = cur_.uvarint();
  p.eface_data = cur_.uvarint();
  cur_.uvarint();  // formerly the panic's defer; always 0 now
  p.link = cur_.uvarint();
  if (!cur_.failed()) dump_.panics.push_back(p);
}

void RecordReader::memStats() {
  MemStats& m = dump_.memstats;
  uint64_t* scalars[] = {&m.alloc,        &m.total_alloc, &m.sys,           &m.lookups,
                         &m.mallocs,      &m.frees,       &m.heap_alloc,    &m.heap_sys,
                         &m.heap_idle,    &m.heap_inuse,  &m.heap_released, &m.heap_objects,
                         &m.stack_inuse,  &m.stack_sys,   &m.mspan_inuse,   &m.mspan_sys,
                         &m.mcache_inuse, &m.mcache_sys,  &m.buck_hash_sys, &m.gc_sys,
                         &m.other_sys,    &m.next_gc,     &m.last_gc,       &m.pause_total_ns};
  for (uint64_t* s : scalars) *s = cur_.uvarint();
  for (uint64_t& p : m.pause_ns) p = cur_.uvarint();
  m.num_gc = cur_.uvarint();
  m.present = !cur_.failed();
}

void RecordReader::memProf() {
  ProfileBucket b;
  b.id = cur_.uvarint();
  b.size = cur_.uvarint();
  uint64_t at = cur_.offset();
  uint64_t nstk = cur_.uvarint();
  // Each frame takes at least three bytes, so a count the file cannot hold is
  // corrupt; checking first keeps a hostile count from reserving memory.
  if (!cur_.failed() && nstk > cur_.remaining() / 3) {
    cur_.failAt(at, "stack depth " + std::to_string(nstk) + " exceeds what the file holds");
    return;
  }
  b.first_frame = static_cast<uint32_t>(dump_.profile_frames.size());
  b.frame_count = static_cast<uint32_t>(nstk);
  for (uint64_t i = 0; i < nstk && !cur_.failed(); i++) {
    ProfileFrame f;
    f.function = cur_.string("function name");
    f.file = cur_.string("file name");
    f.line = cur_.uvarint();
    dump_.profile_frames.push_back(f);
  }
  b.allocs = cur_.uvarint();
  b.frees = cur_.uvarint();
  if (!cur_.failed()) dump_.buckets.push_back(b);
}

void RecordReader::allocSample() {
  AllocSample s;
  s.addr = cur_.uvarint();
  s.bucket_id = cur_.uvarint();
  if (!cur_.failed()) dump_.alloc_samples.push_back(s);
}

// go1.3 objects name their type by address; types may come after the objects.
void RecordReader::resolveGo13Types() {
  Objects& o = dump_.objects;
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(dump_.types.size());
  for (uint32_t i = 0; i < dump_.types.size(); i++) index.emplace(dump_.types[i].addr, i);
  facts_.object_type_index.assign(o.count(), kUnknownType);
  uint64_t unknown = 0;
  for (size_t i = 0; i < o.count(); i++) {
    if (facts_.object_kind[i] == 127) continue;
    if (facts_.object_type_addr[i] == 0) {
      if (facts_.object_kind[i] == 0) facts_.object_type_index[i] = kNoPointerType;
      continue;
    }
    auto it = index.find(facts_.object_type_addr[i]);
    if (it == index.end()) {
      unknown++;
      continue;
    }
    const TypeRecord& t = dump_.types[it->second];
    if (facts_.object_kind[i] == 0 && t.size > o.size[i]) {
      unknown++;  // scanned conservatively
      continue;
    }
    facts_.object_type_index[i] = it->second;
  }
  if (unknown > 0) {
    dump_.warnings.push_back(std::to_string(unknown) +
                             " go1.3 objects name no usable type record; every word of them is "
                             "treated as a possible pointer");
  }
  Column<uint32_t>& layout = o.layout.unpacked();
  layout.resize(o.count());
  for (size_t i = 0; i < o.count(); i++) {
    layout[i] = go13Layout(i);
    dump_.total_field_entries += dump_.layouts.slotCount(layout[i]);
  }
}

// go1.3 objects carry a type and a kind instead of a field list: the type's
// field list applies once (plain), to each element (array), to each element
// after the channel header (channel), or every word may be a pointer
// (conservative, or no type record for it). Type 0 with kind 0 is an object
// the runtime knew to hold no pointers.
uint32_t RecordReader::go13Layout(size_t i) {
  const Objects& o = dump_.objects;
  const uint64_t size = o.size[i];
  const uint32_t ptr = dump_.params.ptr_size;
  const uint8_t kind = facts_.object_kind[i];
  const uint32_t ti = facts_.object_type_index[i];
  PointerLayoutBuilder& builder = lists_->builder();
  if (ti == kNoPointerType) return PointerLayouts::kNoPointers;
  if (kind == 127 || ti == kUnknownType) {
    const uint64_t word[] = {0};
    return builder.addRepeated(word, ptr, size / ptr);
  }
  // resolveGo13Types took types no longer than their plain objects.
  const TypeRecord& type = dump_.types[ti];
  if (kind == 0) return type.layout;
  // Elements from `first` for as long as whole ones fit.
  const uint64_t first = kind == 2 ? facts_.hchan_size : 0;
  const uint64_t stride = type.size;
  if (stride == 0 || first > size || size - first < stride) return PointerLayouts::kNoPointers;
  go13_element_.clear();
  dump_.layouts.forEachOffset(type.layout,
                              [&](uint64_t off) { go13_element_.push_back(first + off); });
  return builder.addRepeated(go13_element_, stride, (size - first) / stride);
}

// Objects are most of a dump, and their columns grew by doubling: every
// growth copied the columns so far and touched new pages one by one (a fifth
// of the read's time on the benchmark). The columns reserve a bound on the
// count at once, in huge pages. Capacity never used is never touched and
// costs address space, not memory. A hostile file of tiny records only makes
// the columns grow as before.
void RecordReader::reserveObjects(uint64_t file_size) {
  const uint64_t guess = objectCountBound(file_size);
  Objects& o = dump_.objects;
  reserveLarge(o.addr.unpacked(), guess);
  o.offset.reserve(guess);
  reserveLarge(o.size.unpacked(), guess);
  reserveLarge(o.layout.unpacked(), guess);
  if (facts_.version == FormatVersion::Go13) {
    reserveLarge(facts_.object_type_addr, guess);
    reserveLarge(facts_.object_kind, guess);
  }
}

void RecordReader::startSecondHalf(const ReadOptions& options) {
  const uint64_t here = cur_.offset();
  const uint64_t file_size = here + cur_.remaining();
  if (options.threads < 2) return;
  std::vector<uint64_t> starts{here};
  if (options.split_search_from != 0) {
    if (options.split_search_from <= here || options.split_search_from >= file_size) return;
    starts.push_back(options.split_search_from);
  } else {
    if (cur_.remaining() < kMinSplitBytes) return;
    const uint64_t n = std::clamp<uint64_t>(cur_.remaining() / kPieceBytes, 2, kMaxPieces);
    for (uint64_t i = 1; i < n; i++) starts.push_back(here + cur_.remaining() / n * i);
  }
  pieces_.resize(starts.size());
  for (size_t i = 0; i < starts.size(); i++) pieces_[i].search_from = starts[i];
  owners_ = std::make_unique<PieceOwners>(static_cast<uint32_t>(pieces_.size()));
  split_from_ = pieces_[1].search_from;
  const uint8_t* base = cur_.pos() - here;
  second_thread_ =
      std::jthread(decodePiecesFromTheEnd, base, cur_.end(), facts_.version, dump_.params,
                   std::ref(pieces_), std::ref(*owners_), std::ref(second_));
  if (options.stats != nullptr) options.stats->split = true;
}

void RecordReader::reachPiece(ReadStats* stats) {
  const uint64_t here = cur_.offset();
  if (!second_joined_) {
    if (owners_->firstAdvance()) {
      piece_++;
      split_from_ = piece_ + 1 < pieces_.size() ? pieces_[piece_ + 1].search_from : UINT64_MAX;
      return;
    }
    // The next piece is the second thread's: it takes no more, so its
    // lowest piece is the first of those to take or drop.
    second_thread_.join();
    second_joined_ = true;
    piece_ = owners_->secondLowest();
  }
  // Pieces that found no boundary hold nothing.
  while (piece_ < pieces_.size() && pieces_[piece_].start == 0) piece_++;
  if (piece_ == pieces_.size()) {
    split_from_ = UINT64_MAX;
    return;
  }
  Piece& piece = pieces_[piece_];
  split_from_ = piece.start;
  if (here < piece.start) return;  // not there yet
  if (here == piece.start) {
    Objects& o = dump_.objects;
    auto append = [&](Column<uint64_t>& to, const std::vector<uint64_t>& from) {
      const auto first = from.begin() + static_cast<ptrdiff_t>(piece.first);
      to.insert(to.end(), first, first + static_cast<ptrdiff_t>(piece.count));
    };
    append(o.addr.unpacked(), second_.addr);
    o.offset.append(second_.offset, piece.first, piece.count);
    append(o.size.unpacked(), second_.size);
    for (size_t j = piece.first; j < piece.first + piece.count; j++) {
      o.layout.push_back(secondLayout(second_.layout[j]));
    }
    facts_.record_counts[static_cast<size_t>(Tag::Object)] += piece.count;
    dump_.total_field_entries += piece.slots;
    if (stats != nullptr) {
      stats->second_objects += piece.count;
      stats->pieces_taken++;
    }
    cur_.seek(cur_.pos() + (piece.stop - here));
  } else if (stats != nullptr) {
    stats->pieces_dropped++;
  }
  piece_++;
  if (piece_ == pieces_.size()) {  // all taken or dropped
    second_ = SecondColumns();
    second_layout_ids_ = {};
  }
  // The caller comes back at once if the next piece begins here too.
  split_from_ = here;
}

Status RecordReader::run(const ReadOptions& options) {
  Status status = records(options);
  // Whatever happened, the second thread stops before the file may go.
  if (second_thread_.joinable()) {
    second_thread_.request_stop();
    second_thread_.join();
  }
  return status;
}

Status RecordReader::records(const ReadOptions& options) {
  constexpr uint64_t kProgressEvery = 64ull << 20;
  uint64_t next_progress = kProgressEvery;
  const uint64_t file_size = cur_.offset() + cur_.remaining();
  reserveObjects(file_size);
  for (;;) {
    if (have_params_ && facts_.version != FormatVersion::Go13) {
      if (!split_considered_) {
        split_considered_ = true;
        startSecondHalf(options);
      }
      fastObjects(std::min(options.sink != nullptr ? next_progress : file_size, split_from_));
    }
    const uint64_t record_start = cur_.offset();
    if (record_start >= split_from_) {
      reachPiece(options.stats);
      continue;
    }
    if (cur_.atEnd()) {
      return Error::atOffset(record_start, "",
                             "the file ends without an EOF record (truncated dump?)");
    }
    if (options.sink != nullptr && record_start >= next_progress) {
      options.sink->progress(record_start);
      next_progress = record_start + kProgressEvery;
    }
    uint64_t tag = cur_.uvarint();
    if (cur_.failed()) return Error::atOffset(cur_.failOffset(), "record tag", cur_.failWhat());
    if (tag >= kTagCount) {
      return Error::atOffset(record_start, "",
                             "unknown record tag " + std::to_string(tag) +
                                 " (the file may be corrupt or not a heap dump)");
    }
    auto t = static_cast<Tag>(tag);
    switch (t) {
      case Tag::Eof:
        break;
      case Tag::Params:
        params();
        break;
      case Tag::Object:
        if (needParams(tag)) object();
        break;
      case Tag::OtherRoot:
        otherRoot();
        break;
      case Tag::Type:
        if (needParams(tag)) type();
        break;
      case Tag::Goroutine:
        goroutine();
        break;
      case Tag::StackFrame:
        if (needParams(tag)) stackFrame();
        break;
      case Tag::Finalizer:
        finalizer(false);
        break;
      case Tag::QueuedFinalizer:
        finalizer(true);
        break;
      case Tag::Itab:
        itab();
        break;
      case Tag::OsThread:
        osThread();
        break;
      case Tag::MemStats:
        memStats();
        break;
      case Tag::Data:
        if (needParams(tag)) segment(dump_.data, "data");
        break;
      case Tag::Bss:
        if (needParams(tag)) segment(dump_.bss, "bss");
        break;
      case Tag::Defer:
        deferRecord();
        break;
      case Tag::Panic:
        panicRecord();
        break;
      case Tag::MemProf:
        memProf();
        break;
      case Tag::AllocSample:
        allocSample();
        break;
    }
    if (cur_.failed()) {
      std::string context =
          std::string(tagName(tag)) + " record at byte offset " + std::to_string(record_start);
      return Error::atOffset(cur_.failOffset(), context, cur_.failWhat());
    }
    facts_.record_counts[tag]++;
    if (t == Tag::Eof) break;
  }
  if (!have_params_) return Error::atOffset(cur_.offset(), "", "the dump has no params record");
  if (!cur_.atEnd()) {
    dump_.warnings.push_back(std::to_string(cur_.remaining()) +
                             " bytes after the EOF record were ignored");
  }
  if (facts_.version == FormatVersion::Go13) resolveGo13Types();
  return Status::success();
}

}  // namespace

Expected<model::HeapModel> readDump(MappedFile file, const ReadOptions& options) {
  const std::string path = file.path();
  std::span<const uint8_t> bytes = file.bytes();
  model::HeapModel dump(std::move(file));
  const Header* header = nullptr;
  for (const Header& h : kHeaders) {
    if (bytes.size() >= h.text.size() &&
        std::string_view(reinterpret_cast<const char*>(bytes.data()), h.text.size()) == h.text) {
      header = &h;
    }
  }
  if (header == nullptr) {
    std::string_view start(reinterpret_cast<const char*>(bytes.data()),
                           std::min<size_t>(bytes.size(), 16));
    std::string shown;
    for (char c : start) {
      shown += (c >= 32 && c < 127) ? c : '.';
    }
    return Error::atOffset(
               0, "header",
               "not a Go heap dump: expected \"go1.N heap dump\\n\" (N = 3 to 7), found \"" +
                   shown + "\"")
        .inFile(path);
  }
  dump.heap_dump.emplace().version = header->version;
  dump.format = formatVersionName(header->version);
  Cursor cur(bytes.data(), bytes.data() + bytes.size());
  cur.skip(header->text.size());
  RecordReader reader(dump, cur);
  Status status = reader.run(options);
  if (!status) {
    // Zeros read from a file that shrank under us make a misleading parse
    // error; the truncation is the thing to tell.
    if (Status changed = dump.file().checkUnchanged(); !changed) return changed.error();
    return status.error().inFile(path);
  }
  if (options.sink != nullptr) options.sink->progress(bytes.size());
  return dump;
}

Expected<model::HeapModel> readDumpFile(const std::string& path, const ReadOptions& options) {
  GOHEAP_TRY(auto file, MappedFile::open(path));
  return readDump(std::move(file), options);
}

}  // namespace goheap::dump
