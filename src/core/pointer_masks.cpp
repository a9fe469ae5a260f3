#include "core/pointer_masks.h"

#include <unordered_map>

#include "util/format.h"

namespace goheap::core {
namespace {

// internal/abi: Kind_'s kindGCProg bit (Go 1.22/1.23; unused since 1.24)
// and TFlagGCMaskOnDemand (Go 1.24+).
constexpr uint8_t kKindGCProg = 1 << 6;
constexpr uint8_t kTFlagGCMaskOnDemand = 1 << 4;

// What one read of the metadata needs of a span.
struct SpanInfo {
  uint64_t addr = 0;  // the mspan struct
  uint64_t base = 0, npages = 0, elemsize = 0, large_type = 0;
  uint8_t spanclass = 0;
  bool ok = false;
  std::span<const uint8_t> heap_bits;  // Go 1.22+, small-object spans; empty if unread
};

// A type descriptor's size, pointer prefix and mask, checked.
struct TypeInfo {
  uint64_t size = 0, ptr_bytes = 0;
  std::span<const uint8_t> mask;  // one bit per word of the pointer prefix
  uint64_t* failure = nullptr;    // the counter to bump when unusable, else null
  std::string why;
};

class MaskReader {
 public:
  MaskReader(const MemoryImage& mem, const RuntimeLayout& l, const HeapBitsLayout& b,
             PointerMasks& out, Sink& told)
      : mem_(mem),
        l_(l),
        b_(b),
        out_(out),
        told_(told),
        words_(mem.words()),
        ptr_(words_.ptrSize()) {}

  // Appends object [addr, addr + size)'s pointer offsets to `offs`.
  void read(uint64_t addr, uint64_t size, std::vector<uint64_t>& offs) {
    if (b_.format == HeapBitsFormat::ArenaTwoBit) {
      readArenaBits(addr, size, offs);
    } else if (b_.format == HeapBitsFormat::ArenaOneBit) {
      readArenaOneBit(addr, size, offs);
    } else {
      readSpanBits(addr, size, offs);
    }
  }

 private:
  void fail(uint64_t& counter, uint64_t addr, const std::string& why) {
    if (counter++ == 0) told_.warning("object " + formatHex(addr) + ": " + why);
  }

  // The heapArena struct holding `addr`, or 0; cached for the last arena.
  uint64_t arenaOf(uint64_t addr) {
    const uint64_t idx = (addr - b_.arena_base_offset) / b_.arena_bytes;
    if (idx == arena_idx_) return arena_;
    arena_idx_ = idx;
    arena_ = 0;
    arena_bitmap_ = {};
    arena_no_more_ptrs_ = {};
    if (idx / b_.arena_l2 >= b_.arena_l1) return 0;
    auto l2 =
        mem_.readWord(l_.mheap_addr + mem_.bias() + b_.mheap_arenas + idx / b_.arena_l2 * ptr_);
    if (!l2 || *l2 == 0) return 0;
    auto ha = mem_.readWord(*l2 + idx % b_.arena_l2 * ptr_);
    if (!ha) return 0;
    arena_ = *ha;
    if (b_.format != HeapBitsFormat::SpanHeapBits && arena_ != 0) {
      auto bitmap = mem_.read(arena_ + b_.arena_bitmap, b_.arena_bitmap_bytes);
      if (bitmap) arena_bitmap_ = *bitmap;
    }
    if (b_.format == HeapBitsFormat::ArenaOneBit && arena_ != 0) {
      auto no_more = mem_.read(arena_ + b_.arena_no_more_ptrs, b_.arena_no_more_ptrs_bytes);
      if (no_more) arena_no_more_ptrs_ = *no_more;
    }
    return arena_;
  }

  // The arena's bitmap for `addr`, or false after counting why it is not there.
  bool haveArenaBitmap(uint64_t addr, uint64_t a) {
    if (arenaOf(a) != 0 && !arena_bitmap_.empty() &&
        (b_.format != HeapBitsFormat::ArenaOneBit || !arena_no_more_ptrs_.empty())) {
      return true;
    }
    fail(arena_ == 0 ? out_.no_span : out_.unreadable_bits, addr,
         arena_ == 0
             ? "no heap arena holds " + formatHex(a)
             : "the heap bitmap of the arena holding " + formatHex(a) + " is not in the core");
    return false;
  }

  // Go 1.19: per word, bit `shift` of its bitmap byte says pointer, bit
  // shift + 4 that this or a later word may be one; the first word with
  // that clear ends the object's pointers (heapBits.morePointers).
  void readArenaBits(uint64_t addr, uint64_t size, std::vector<uint64_t>& offs) {
    for (uint64_t off = 0; off + ptr_ <= size; off += ptr_) {
      const uint64_t a = addr + off;
      if (!haveArenaBitmap(addr, a)) return;
      const uint8_t byte = arena_bitmap_[a / (ptr_ * 4) % b_.arena_bitmap_bytes];
      const unsigned shift = static_cast<unsigned>(a / ptr_ & 3);
      if ((byte >> (shift + 4) & 1) == 0) return;
      if (byte >> shift & 1) offs.push_back(off);
    }
  }

  // Go 1.20/1.21 (heapBitsForAddr and heapBits.next): bit k of bitmap word
  // i is the arena's word i * bits + k. An object whose words run on past
  // bitmap word i has no pointers beyond it when bit i of noMorePtrs is set.
  void readArenaOneBit(uint64_t addr, uint64_t size, std::vector<uint64_t>& offs) {
    const uint64_t bits = ptr_ * 8;
    const uint64_t arena_words = b_.arena_bytes / ptr_;
    uint64_t off = 0;
    while (off + ptr_ <= size) {
      const uint64_t a = addr + off;
      if (!haveArenaBitmap(addr, a)) return;
      const uint64_t word = a / ptr_ % arena_words;
      const uint64_t idx = word / bits, first = word % bits;
      if ((idx + 1) * ptr_ > arena_bitmap_.size()) {
        fail(out_.unreadable_bits, addr, "its heap bits lie beyond its arena's bitmap");
        return;
      }
      const uint64_t mask = words_.read(arena_bitmap_.data() + idx * ptr_);
      const uint64_t here = std::min(bits - first, (size - off) / ptr_);
      for (uint64_t k = 0; k < here; ++k) {
        if (mask >> (first + k) & 1) offs.push_back(off + k * ptr_);
      }
      off += here * ptr_;
      if (off + ptr_ <= size && (arena_no_more_ptrs_[idx / 8] >> (idx % 8) & 1)) return;
    }
  }

  // The span holding `addr` (cached for the last span), through its arena's
  // spans array as the runtime's spanOf finds it.
  const SpanInfo* spanOf(uint64_t addr) {
    if (span_.ok && addr >= span_.base && addr - span_.base < span_.npages * l_.page_size) {
      return &span_;
    }
    const uint64_t ha = arenaOf(addr);
    if (ha == 0) return nullptr;
    const uint64_t page = addr / l_.page_size % (b_.arena_bytes / l_.page_size);
    auto s = mem_.readWord(ha + b_.arena_spans + page * ptr_);
    if (!s || *s == 0) return nullptr;
    if (*s == span_.addr) return span_.ok ? &span_ : nullptr;
    span_ = SpanInfo{};
    span_.addr = *s;
    auto bytes = mem_.read(*s, l_.mspan_size);
    if (!bytes) return nullptr;
    span_.base = fieldValue(words_, *bytes, l_.span_start_addr);
    span_.npages = fieldValue(words_, *bytes, l_.span_npages);
    span_.elemsize = fieldValue(words_, *bytes, l_.span_elemsize);
    span_.spanclass = static_cast<uint8_t>(fieldValue(words_, *bytes, b_.span_spanclass));
    span_.large_type = fieldValue(words_, *bytes, b_.span_large_type);
    const uint64_t span_bytes = span_.npages * l_.page_size;
    if (span_.npages == 0 || span_.npages > (UINT64_MAX - span_.base) / l_.page_size ||
        span_.elemsize == 0 || addr < span_.base || addr - span_.base >= span_bytes) {
      return nullptr;
    }
    span_.ok = true;
    if (span_.elemsize <= maxHeapBitsSize() && (span_.spanclass & 1) == 0) {
      // spanHeapBitsRange: one bit per word of the span, at its end, before
      // the Green Tea inline mark bits in spans of 16 bytes and more.
      const uint64_t n = span_bytes / ptr_ / 8;
      const uint64_t inline_bits = span_.elemsize >= 16 ? b_.inline_mark_bits_size : 0;
      if (n + inline_bits <= span_bytes) {
        auto hb = mem_.read(span_.base + span_bytes - n - inline_bits, n);
        if (hb) span_.heap_bits = *hb;
      }
    }
    return &span_;
  }

  // gc.MinSizeForMallocHeader: objects this small have no header.
  uint64_t maxHeapBitsSize() const { return ptr_ * ptr_ * 8; }

  // Bit k of heap bits read as the runtime reads them, a word at a time.
  bool heapBit(std::span<const uint8_t> bits, uint64_t k) const {
    const uint64_t w = k / (ptr_ * 8);
    return (words_.read(bits.data() + w * ptr_) >> (k % (ptr_ * 8)) & 1) != 0;
  }

  void readSpanBits(uint64_t addr, uint64_t size, std::vector<uint64_t>& offs) {
    const SpanInfo* s = spanOf(addr);
    if (s == nullptr) {
      fail(out_.no_span, addr, "no span of the core holds it");
      return;
    }
    if (s->spanclass & 1) return;  // noscan
    const uint64_t limit = addr + std::min(size, s->elemsize);
    if (s->elemsize <= maxHeapBitsSize()) {
      if (s->heap_bits.empty()) {
        fail(out_.unreadable_bits, addr,
             "the heap bits of span " + formatHex(s->addr) + " are not in the core");
        return;
      }
      const uint64_t first = (addr - s->base) / ptr_;
      const uint64_t words = (limit - addr) / ptr_;
      if ((first + words + ptr_ * 8 - 1) / (ptr_ * 8) * ptr_ > s->heap_bits.size()) {
        fail(out_.unreadable_bits, addr, "its heap bits lie beyond span " + formatHex(s->addr));
        return;
      }
      for (uint64_t w = 0; w < words; ++w) {
        if (heapBit(s->heap_bits, first + w)) offs.push_back(w * ptr_);
      }
      return;
    }
    // A header (small size classes) or the span's largeType (size class 0).
    uint64_t start = addr, type = s->large_type;
    if ((s->spanclass >> 1) != 0) {
      auto t = mem_.readWord(addr);
      if (!t) {
        fail(out_.unreadable_bits, addr, "its malloc header is not in the core");
        return;
      }
      type = *t;
      start += ptr_;
    }
    if (type == 0) return;  // not yet typed (the runtime's delayed zeroing)
    if ((s->spanclass >> 1) == 0) out_.large_types.push_back({addr, type});
    const TypeInfo& t = typeInfo(type);
    if (t.failure != nullptr) {
      fail(*t.failure, addr, "type " + formatHex(type) + ": " + t.why);
      return;
    }
    // Tiled: each Size_ bytes, the mask over the PtrBytes prefix.
    for (uint64_t elem = start; elem < limit && t.ptr_bytes != 0; elem += t.size) {
      for (uint64_t w = 0; w < t.ptr_bytes / ptr_ && elem + w * ptr_ < limit; ++w) {
        if (t.mask[w / 8] >> (w % 8) & 1) offs.push_back(elem + w * ptr_ - addr);
      }
      if (t.size > limit - elem) break;
    }
  }

  const TypeInfo& typeInfo(uint64_t addr) {
    auto [it, fresh] = types_.try_emplace(addr);
    TypeInfo& t = it->second;
    if (!fresh) return t;
    auto bytes = mem_.read(addr, b_.type_struct_size);
    if (!bytes) {
      t.failure = &out_.bad_type;
      t.why = "the descriptor is not in the core or the executable";
      return t;
    }
    t.size = fieldValue(words_, *bytes, b_.type_size);
    t.ptr_bytes = fieldValue(words_, *bytes, b_.type_ptr_bytes);
    const uint64_t tflag = fieldValue(words_, *bytes, b_.type_tflag);
    const uint64_t kind = fieldValue(words_, *bytes, b_.type_kind);
    uint64_t gcdata = fieldValue(words_, *bytes, b_.type_gcdata);
    if (t.size < ptr_ || t.ptr_bytes > t.size || t.ptr_bytes % ptr_ != 0) {
      t.failure = &out_.bad_type;
      t.why = "size " + std::to_string(t.size) + " with " + std::to_string(t.ptr_bytes) +
              " bytes of pointers";
      return t;
    }
    if (kind & kKindGCProg) {
      t.failure = &out_.gc_program;
      t.why = "its pointer mask is a GC program, which is not run";
      return t;
    }
    if (tflag & kTFlagGCMaskOnDemand) {
      // GCData points at a slot the runtime fills with the mask on first use.
      auto built = mem_.readWord(gcdata);
      const uint64_t in_progress = b_.in_progress_addr + mem_.bias();
      if (!built || *built == 0 || (b_.in_progress_addr != 0 && *built == in_progress)) {
        t.failure = &out_.mask_not_built;
        t.why = "its pointer mask is built on demand and was not built";
        return t;
      }
      gcdata = *built;
    }
    auto mask = mem_.read(gcdata, (t.ptr_bytes / ptr_ + 7) / 8);
    if (!mask) {
      t.failure = &out_.bad_type;
      t.why = "its pointer mask at " + formatHex(gcdata) + " is not readable";
      return t;
    }
    t.mask = *mask;
    return t;
  }

  const MemoryImage& mem_;
  const RuntimeLayout& l_;
  const HeapBitsLayout& b_;
  PointerMasks& out_;
  Sink& told_;
  const WordReader& words_;
  const uint64_t ptr_;
  uint64_t arena_idx_ = UINT64_MAX, arena_ = 0;
  std::span<const uint8_t> arena_bitmap_, arena_no_more_ptrs_;
  SpanInfo span_;
  std::unordered_map<uint64_t, TypeInfo> types_;
};

}  // namespace

PointerMasks readPointerMasks(const MemoryImage& mem, const RuntimeLayout& layout,
                              const HeapBitsLayout& bits, const HeapObjects& heap, Sink& told) {
  PointerMasks out;
  out.layout.reserve(heap.count());
  model::PointerLayoutBuilder builder(out.layouts);
  MaskReader reader(mem, layout, bits, out, told);
  std::vector<uint64_t> offs;
  for (size_t i = 0; i < heap.count(); ++i) {
    offs.clear();
    reader.read(heap.addr[i], heap.size[i], offs);
    if (!offs.empty()) ++out.objects_with_pointers;
    out.pointer_words += offs.size();
    out.layout.push_back(builder.add(offs));
  }
  return out;
}

}  // namespace goheap::core
