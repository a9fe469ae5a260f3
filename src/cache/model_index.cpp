#include "cache/model_index.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "goruntime/heap_dump_format.h"
#include "util/parallel.h"

namespace goheap::cache {

namespace {

// Section ids of the model, after the snapshot's (snapshot_index.h).
enum ModelSection : uint32_t {
  kModelHeader = 100,
  kMemStats,
  kSegments,    // data, then bss
  kObjectAddr,  // u32 deltas or u64 values: see kObjectAddrPacking
  kObjectSize,
  kObjectOffsetLow,
  kObjectOffsetHigh,
  kObjectLayout,
  kObjectSpanMetadata,
  kLayoutBegin,
  kLayoutOffsets,
  kLayoutStride,
  kLayoutRepeats,
  kTypes,
  kTypeStrings,
  kItabs,
  kOtherRoots,
  kOtherRootStrings,
  kGoroutines,
  kGoroutineStrings,
  kFrames,
  kFrameStrings,
  kFinalizers,
  kThreads,
  kDefers,
  kPanics,
  kBuckets,
  kProfileFrames,
  kProfileFrameStrings,
  kAllocSamples,
  kWarnings,           // the warnings, each followed by a NUL
  kObjectAddrPacking,  // how kObjectAddr is packed (IndexWriter::addPacked)
  kObjectSizePacking,
  kObjectLayoutPacking,
  kLargeObjectTypes,
};

// A string of the model: where it lies in the dump file.
struct StringRef {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The model's scalars.
struct ModelHeader {
  uint32_t version = 0;
  uint32_t ptr_size = 0;
  uint32_t big_endian = 0;
  uint32_t stack_objects_in_layouts = 0;
  uint64_t heap_start = 0, heap_end = 0, ncpu = 0, hchan_size = 0, thechar = 0;
  StringRef arch, go_version, experiment;
  uint64_t total_field_entries = 0;
  std::array<uint64_t, model::kDumpTagCount> record_counts{};
};
static_assert(std::is_trivially_copyable_v<ModelHeader>);

// Where `s` lies in `file`; false when it is not in it (then the model is
// not kept).
bool refOf(std::string_view s, std::span<const uint8_t> file, StringRef& out) {
  if (s.empty()) {
    out = {};
    return true;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  if (p < file.data() || p > file.data() + file.size() ||
      s.size() > static_cast<size_t>(file.data() + file.size() - p)) {
    return false;
  }
  out = {static_cast<uint64_t>(p - file.data()), s.size()};
  return true;
}

bool viewOf(StringRef r, std::span<const uint8_t> file, std::string_view& out) {
  if (r.offset > file.size() || r.size > file.size() - r.offset) return false;
  out = r.size == 0 ? std::string_view()
                    : std::string_view(reinterpret_cast<const char*>(file.data() + r.offset),
                                       static_cast<size_t>(r.size));
  return true;
}

template <class T>
std::vector<uint8_t> bytesOf(std::span<const T> values) {
  std::vector<uint8_t> out(values.size_bytes());
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Sections made here, added to the writer once they all could be made.
struct OwnedSection {
  uint32_t id;
  uint32_t element_size;
  std::vector<uint8_t> bytes;
};

// Records with string fields: the records with those fields emptied, and
// their strings' places in a section of their own, in record order.
template <class T, class... Strings>
bool addRecords(std::vector<OwnedSection>& out, uint32_t id, uint32_t strings_id,
                const std::vector<T>& records, std::span<const uint8_t> file,
                Strings T::*... strings) {
  std::vector<T> emptied = records;
  std::vector<StringRef> refs;
  refs.reserve(records.size() * sizeof...(strings));
  for (T& r : emptied) {
    bool ok = true;
    auto take = [&](std::string_view& s) {
      StringRef ref;
      ok = ok && refOf(s, file, ref);
      refs.push_back(ref);
      s = {};
    };
    (take(r.*strings), ...);
    if (!ok) return false;
  }
  out.push_back({id, sizeof(T), bytesOf(std::span<const T>(emptied))});
  out.push_back({strings_id, sizeof(StringRef), bytesOf(std::span<const StringRef>(refs))});
  return true;
}

template <class T>
Status readArray(const IndexFile& index, uint32_t id, std::vector<T>& out) {
  Expected<std::span<const T>> values = index.array<T>(id);
  if (!values) return Error("section " + std::to_string(id) + ": " + values.error().message());
  out.assign(values->begin(), values->end());
  return Status::success();
}

template <class T, class... Strings>
Status readRecords(const IndexFile& index, uint32_t id, uint32_t strings_id, std::vector<T>& out,
                   std::span<const uint8_t> file, Strings T::*... strings) {
  if (Status s = readArray(index, id, out); !s) return s;
  Expected<std::span<const StringRef>> refs = index.array<StringRef>(strings_id);
  if (!refs) return Error("section " + std::to_string(strings_id) + ": " + refs.error().message());
  if (refs->size() != out.size() * sizeof...(strings)) {
    return Error("section " + std::to_string(strings_id) + ": not one string per field");
  }
  size_t next = 0;
  for (T& r : out) {
    bool ok = true;
    ((ok = ok && viewOf((*refs)[next++], file, r.*strings)), ...);
    if (!ok) return Error("section " + std::to_string(strings_id) + ": a string outside the dump");
  }
  return Status::success();
}

// The bytes past its start that a value of pointer layout k may be read
// at: its last slot's end. Per layout.
std::vector<uint64_t> layoutExtents(const model::PointerLayouts& l, uint32_t ptr_size) {
  std::vector<uint64_t> out(l.count(), 0);
  for (uint32_t k = 0; k < l.count(); k++) {
    const std::span<const uint64_t> pattern = l.pattern(k);
    if (pattern.empty() || l.repeats[k] == 0) continue;
    const uint64_t last = *std::max_element(pattern.begin(), pattern.end());
    const uint64_t steps = l.repeats[k] - 1;
    // Saturating: a layout this long fits nothing, and is refused below.
    if (steps != 0 && l.stride[k] > (UINT64_MAX - last - ptr_size) / steps) {
      out[k] = UINT64_MAX;
    } else {
      out[k] = steps * l.stride[k] + last + ptr_size;
    }
  }
  return out;
}

// Why `d` does not fit its file or itself, or empty. The objects are
// checked on `threads` threads, in one pass.
std::string modelProblem(const model::HeapModel& d, unsigned threads) {
  const uint64_t file_size = d.region(0).size();
  const model::Objects& o = d.objects;
  const size_t n = o.addr.size();
  if (d.params.ptr_size != 4 && d.params.ptr_size != 8) return "its pointer size";
  if (o.size.size() != n || o.offset.size() != n || o.layout.size() != n ||
      (!o.span_metadata.empty() && o.span_metadata.size() != n)) {
    return "the object columns' lengths";
  }
  const model::PointerLayouts& l = d.layouts;
  if (l.begin.size() != l.stride.size() + 1 || l.repeats.size() != l.stride.size() ||
      l.begin.empty() || l.begin[0] != 0 || l.begin.back() != l.offsets.size()) {
    return "the pointer layouts";
  }
  for (size_t k = 0; k + 1 < l.begin.size(); k++) {
    if (l.begin[k + 1] < l.begin[k]) return "the pointer layouts";
  }
  const std::vector<uint64_t> extent = layoutExtents(l, d.params.ptr_size);
  auto fits = [&](uint32_t layout, uint64_t size) {
    return layout < l.count() && extent[layout] <= size;
  };
  auto inFile = [&](const model::ByteRange& r) {
    return r.region == 0 && r.offset <= file_size && r.size <= file_size - r.offset;
  };
  // Each part's first problem; the first part's that has one is told, so
  // that the message does not depend on the thread count. A thread per
  // 64Ki objects at least: below that one costs more than it saves.
  threads = static_cast<unsigned>(std::clamp<size_t>(n >> 16, 1, std::max(1u, threads)));
  std::vector<const char*> part_problem(threads, nullptr);
  forEachRange(n, threads, [&](unsigned part, size_t first, size_t last) {
    for (size_t i = first; i < last; i++) {
      const uint64_t at = o.offset[i], size = o.size[i];
      const char* problem = nullptr;
      if (at > file_size || size > file_size - at) {
        problem = "an object outside the dump";
      } else if (!fits(o.layout[i], size)) {
        problem = "an object's pointer layout";
      } else if (i > 0 && o.addr[i] < o.addr[i - 1]) {
        problem = "objects out of order";
      }
      if (problem != nullptr) {
        part_problem[part] = problem;
        return;
      }
    }
  });
  for (const char* problem : part_problem) {
    if (problem != nullptr) return problem;
  }
  for (const model::TypeRecord& t : d.types) {
    if (t.layout >= l.count()) return "a type's pointer layout";
  }
  for (const model::Goroutine& g : d.goroutines) {
    if (g.first_frame > d.frames.size() || g.frame_count > d.frames.size() - g.first_frame) {
      return "a goroutine's frames";
    }
  }
  for (const model::StackFrame& f : d.frames) {
    if (!inFile(f.contents) || !fits(f.layout, f.contents.size)) return "a frame's contents";
    if (f.goroutine != UINT32_MAX && f.goroutine >= d.goroutines.size()) {
      return "a frame's goroutine";
    }
  }
  for (const model::Segment* s : {&d.data, &d.bss}) {
    if (s->present && (!inFile(s->contents) || !fits(s->layout, s->contents.size))) {
      return "a segment's contents";
    }
  }
  for (const model::ProfileBucket& b : d.buckets) {
    if (b.first_frame > d.profile_frames.size() ||
        b.frame_count > d.profile_frames.size() - b.first_frame) {
      return "a profile bucket's frames";
    }
  }
  return {};
}

}  // namespace

bool modelIsCacheable(const model::HeapModel& model) {
  return model.heap_dump.has_value() && model.regionCount() == 1 && model.objects.region.empty();
}

void addModelSections(const model::HeapModel& d, IndexWriter& writer) {
  if (!modelIsCacheable(d)) return;
  const std::span<const uint8_t> file = d.region(0);
  // The strings first: a model with one outside the file adds nothing.
  std::vector<OwnedSection> strings;
  ModelHeader h;
  h.version = static_cast<uint32_t>(d.heap_dump->version);
  h.ptr_size = d.params.ptr_size;
  h.big_endian = d.params.big_endian ? 1 : 0;
  h.stack_objects_in_layouts = d.stack_objects_in_layouts ? 1 : 0;
  h.heap_start = d.params.heap_start;
  h.heap_end = d.params.heap_end;
  h.ncpu = d.params.ncpu;
  h.hchan_size = d.heap_dump->hchan_size;
  h.thechar = d.heap_dump->thechar;
  h.total_field_entries = d.total_field_entries;
  h.record_counts = d.heap_dump->record_counts;
  if (!refOf(d.params.arch, file, h.arch) || !refOf(d.params.go_version, file, h.go_version) ||
      !refOf(d.params.experiment, file, h.experiment) ||
      !addRecords(strings, kTypes, kTypeStrings, d.types, file, &model::TypeRecord::name) ||
      !addRecords(strings, kOtherRoots, kOtherRootStrings, d.other_roots, file,
                  &model::OtherRoot::description) ||
      !addRecords(strings, kGoroutines, kGoroutineStrings, d.goroutines, file,
                  &model::Goroutine::wait_reason) ||
      !addRecords(strings, kFrames, kFrameStrings, d.frames, file, &model::StackFrame::function) ||
      !addRecords(strings, kProfileFrames, kProfileFrameStrings, d.profile_frames, file,
                  &model::ProfileFrame::function, &model::ProfileFrame::file)) {
    return;
  }
  for (OwnedSection& section : strings) {
    writer.addOwned(section.id, section.element_size, std::move(section.bytes));
  }
  writer.addOwned(kModelHeader, sizeof h, bytesOf(std::span<const ModelHeader>(&h, 1)));
  writer.addOwned(kMemStats, sizeof(model::MemStats),
                  bytesOf(std::span<const model::MemStats>(&d.memstats, 1)));
  const std::array<model::Segment, 2> segments{d.data, d.bss};
  writer.addOwned(kSegments, sizeof(model::Segment),
                  bytesOf(std::span<const model::Segment>(segments)));

  const model::Objects& o = d.objects;
  writer.addPacked(kObjectAddr, kObjectAddrPacking, o.addr);
  writer.addPacked(kObjectSize, kObjectSizePacking, o.size);
  writer.addArray(kObjectOffsetLow, o.offset.lowHalves().span());
  writer.addArray(kObjectOffsetHigh, o.offset.highHalves().span());
  writer.addPacked(kObjectLayout, kObjectLayoutPacking, o.layout);
  writer.addArray(kObjectSpanMetadata, o.span_metadata.span());
  writer.addArray(kLayoutBegin, std::span<const uint64_t>(d.layouts.begin));
  writer.addArray(kLayoutOffsets, std::span<const uint64_t>(d.layouts.offsets));
  writer.addArray(kLayoutStride, std::span<const uint64_t>(d.layouts.stride));
  writer.addArray(kLayoutRepeats, std::span<const uint64_t>(d.layouts.repeats));
  writer.addArray(kItabs, std::span<const model::ItabRecord>(d.itabs));
  writer.addArray(kLargeObjectTypes, std::span<const model::LargeObjectType>(d.large_object_types));
  writer.addArray(kFinalizers, std::span<const model::Finalizer>(d.finalizers));
  writer.addArray(kThreads, std::span<const model::OsThread>(d.threads));
  writer.addArray(kDefers, std::span<const model::Defer>(d.defers));
  writer.addArray(kPanics, std::span<const model::Panic>(d.panics));
  writer.addArray(kBuckets, std::span<const model::ProfileBucket>(d.buckets));
  writer.addArray(kAllocSamples, std::span<const model::AllocSample>(d.alloc_samples));
  std::vector<uint8_t> warnings;
  for (const std::string& w : d.warnings) {
    warnings.insert(warnings.end(), w.begin(), w.end());
    warnings.push_back(0);
  }
  writer.addOwned(kWarnings, 1, std::move(warnings));
}

bool hasModel(const IndexFile& index) {
  return index.has(kModelHeader);
}

Expected<model::HeapModel> readModelSections(const IndexFile& index, MappedFile file,
                                             unsigned threads) {
  model::HeapModel d(std::move(file));
  const std::span<const uint8_t> bytes = d.region(0);
  GOHEAP_TRY(std::span<const ModelHeader> header, index.array<ModelHeader>(kModelHeader));
  if (header.size() != 1) return Error("the model's header");
  const ModelHeader& h = header[0];
  if (h.version > static_cast<uint32_t>(model::FormatVersion::Go17)) {
    return Error("the model's format version");
  }
  model::HeapDumpFacts& facts = d.heap_dump.emplace();
  facts.version = static_cast<model::FormatVersion>(h.version);
  d.format = goruntime::formatVersionName(facts.version);
  d.params.ptr_size = h.ptr_size;
  d.params.big_endian = h.big_endian != 0;
  d.params.heap_start = h.heap_start;
  d.params.heap_end = h.heap_end;
  d.params.ncpu = h.ncpu;
  facts.hchan_size = h.hchan_size;
  facts.thechar = h.thechar;
  if (!viewOf(h.arch, bytes, d.params.arch) || !viewOf(h.go_version, bytes, d.params.go_version) ||
      !viewOf(h.experiment, bytes, d.params.experiment)) {
    return Error("the model's parameters lie outside the dump");
  }
  d.stack_objects_in_layouts = h.stack_objects_in_layouts != 0;
  d.total_field_entries = h.total_field_entries;
  facts.record_counts = h.record_counts;

  std::vector<model::MemStats> memstats;
  std::vector<model::Segment> segments;
  Column<uint32_t> offset_low;
  Column<uint16_t> offset_high;
  model::Objects& o = d.objects;
  for (Status s :
       {readArray(index, kMemStats, memstats),
        readArray(index, kSegments, segments),
        index.packedColumn(kObjectAddr, kObjectAddrPacking, o.addr),
        index.packedColumn(kObjectSize, kObjectSizePacking, o.size),
        index.column(kObjectOffsetLow, offset_low),
        index.column(kObjectOffsetHigh, offset_high),
        index.packedColumn(kObjectLayout, kObjectLayoutPacking, o.layout),
        index.column(kObjectSpanMetadata, o.span_metadata),
        readArray(index, kLayoutBegin, d.layouts.begin),
        readArray(index, kLayoutOffsets, d.layouts.offsets),
        readArray(index, kLayoutStride, d.layouts.stride),
        readArray(index, kLayoutRepeats, d.layouts.repeats),
        readRecords(index, kTypes, kTypeStrings, d.types, bytes, &model::TypeRecord::name),
        readArray(index, kItabs, d.itabs),
        readArray(index, kLargeObjectTypes, d.large_object_types),
        readRecords(index, kOtherRoots, kOtherRootStrings, d.other_roots, bytes,
                    &model::OtherRoot::description),
        readRecords(index, kGoroutines, kGoroutineStrings, d.goroutines, bytes,
                    &model::Goroutine::wait_reason),
        readRecords(index, kFrames, kFrameStrings, d.frames, bytes, &model::StackFrame::function),
        readArray(index, kFinalizers, d.finalizers),
        readArray(index, kThreads, d.threads),
        readArray(index, kDefers, d.defers),
        readArray(index, kPanics, d.panics),
        readArray(index, kBuckets, d.buckets),
        readRecords(index, kProfileFrames, kProfileFrameStrings, d.profile_frames, bytes,
                    &model::ProfileFrame::function, &model::ProfileFrame::file),
        readArray(index, kAllocSamples, d.alloc_samples)}) {
    if (!s) return s.error();
  }
  if (memstats.size() != 1 || segments.size() != 2)
    return Error("the model's memstats or segments");
  d.memstats = memstats[0];
  d.data = segments[0];
  d.bss = segments[1];
  if (!offset_high.empty() && offset_high.size() != offset_low.size()) {
    return Error("the objects' offsets");
  }
  o.offset = model::OffsetColumn::fromHalves(std::move(offset_low), std::move(offset_high));
  GOHEAP_TRY(std::span<const uint8_t> warnings, index.bytes(kWarnings));
  std::string_view text(reinterpret_cast<const char*>(warnings.data()), warnings.size());
  for (size_t end = text.find('\0'); end != std::string_view::npos; end = text.find('\0')) {
    d.warnings.emplace_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  if (std::string p = modelProblem(d, threads); !p.empty()) {
    return Error("the heap model does not fit the dump: " + p);
  }
  return d;
}

}  // namespace goheap::cache
