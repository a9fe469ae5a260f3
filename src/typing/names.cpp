#include "typing/names.h"

#include <algorithm>
#include <unordered_map>

#include "model/span_metadata.h"
#include "util/enum_names.h"
#include "util/large_vector.h"

namespace goheap::typing {

constexpr std::array<std::string_view, 6> kNameSourceNames = {"type",      "site",  "closure",
                                                              "interface", "shape", "runtime"};
static_assert(namesEveryValue(kNameSourceNames, NameSource::Runtime));

std::string_view nameSourceName(NameSource s) {
  return enumName(s, kNameSourceNames, "");
}

bool isRuntimeFunction(std::string_view function) {
  return function.starts_with("runtime.") || function.starts_with("runtime/internal/") ||
         function.starts_with("internal/runtime/");
}

namespace {

std::string_view baseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The name of the value an interface's data word points at, given the
// interface's dynamic type. A pointer type *T points at a T. The runtime
// names pointer types with methods only by their package ("main."): the
// pointee is then a type of that package whose name the dump lacks.
std::string pointeeName(std::string_view type_name, uint64_t type_size, uint32_t ptr_size) {
  if (type_name.starts_with("*")) return std::string(type_name.substr(1));
  if (type_name.ends_with(".") && type_size == ptr_size) return std::string(type_name) + "?";
  return std::string(type_name);
}

}  // namespace

// One source frame of an allocation stack.
struct ObjectNamer::SiteFrame {
  std::string_view function, file;
  uint64_t line = 0;
  bool runtime = false;
};

// The dump names an allocation-stack frame by its physical function, even
// where the frame is a call inlined into it (the runtime lists one PC per
// inlined call, with the inlined function's file and line): with the
// executable, the frame gets the inlined function's name.
ObjectNamer::SiteFrame ObjectNamer::siteFrame(
    const model::ProfileFrame& f, std::unordered_map<std::string, std::string_view>& cache) const {
  SiteFrame sf{f.function, f.file, f.line, false};
  if (exe_ != nullptr) {
    std::string key =
        std::string(f.function) + '\0' + std::string(f.file) + '\0' + std::to_string(f.line);
    auto [it, inserted] = cache.try_emplace(std::move(key), f.function);
    if (inserted) it->second = exe_->inlinedName(f.function, f.file, static_cast<int64_t>(f.line));
    sf.function = it->second;
  }
  sf.runtime = isRuntimeFunction(sf.function);
  return sf;
}

namespace {

template <class Pairs>
const typename Pairs::value_type* findByObject(const Pairs& pairs, NodeId object) {
  auto it = std::lower_bound(pairs.begin(), pairs.end(), object,
                             [](const auto& p, NodeId o) { return p.first < o; });
  if (it == pairs.end() || it->first != object) return nullptr;
  return &*it;
}

}  // namespace

ObjectNamer::ObjectNamer(const model::HeapModel& model, const graph::Heap& heap,
                         const binding::BoundExecutable* exe, const HeapTypes* types)
    : model_(model), heap_(heap), exe_(exe), types_(exe != nullptr ? types : nullptr) {
  if (exe != nullptr) {
    std::span<const bin::Func> funcs = exe->binary().pclntab().funcs();
    if (!funcs.empty()) {
      text_lo_ = funcs.front().entry + exe->loadBias();
      text_hi_ = funcs.back().entry + exe->loadBias();
    }
  }
  // Allocation sites.
  std::unordered_map<std::string, std::string_view> names;  // see siteFrame
  std::unordered_map<uint64_t, uint32_t> bucket_index;
  bucket_index.reserve(model.buckets.size());
  site_names_.reserve(model.buckets.size());
  for (uint32_t b = 0; b < model.buckets.size(); b++) {
    const model::ProfileBucket& bucket = model.buckets[b];
    bucket_index.emplace(bucket.id, b);
    std::optional<SiteFrame> chosen;
    for (uint32_t i = 0; i < bucket.frame_count; i++) {
      const SiteFrame sf = siteFrame(model.profile_frames[bucket.first_frame + i], names);
      if (!chosen) chosen = sf;  // all-runtime stacks keep their leaf
      if (!sf.runtime) {
        chosen = sf;
        break;
      }
    }
    if (!chosen) {
      site_names_.push_back("(empty stack)");
    } else {
      site_names_.push_back(std::string(chosen->function) + " " +
                            std::string(baseName(chosen->file)) + ":" +
                            std::to_string(chosen->line));
    }
  }
  samples_.reserve(model.alloc_samples.size());
  for (const model::AllocSample& s : model.alloc_samples) {
    NodeId o = heap.addresses().find(s.addr);
    auto b = bucket_index.find(s.bucket_id);
    if (o != kNoNode && b != bucket_index.end()) samples_.emplace_back(o, b->second);
  }
  std::sort(samples_.begin(), samples_.end());

  // Interface types: a pointer slot whose preceding word is an itab (or a
  // type descriptor the dump describes) is the data word of an interface.
  std::unordered_map<uint64_t, uint32_t> type_index;
  for (uint32_t t = 0; t < model.types.size(); t++) {
    type_index.emplace(model.types[t].addr, t);
    type_of_word_.emplace(model.types[t].addr, t);
  }
  for (const model::ItabRecord& it : model.itabs) {
    auto t = type_index.find(it.type_addr);
    if (t != type_index.end()) type_of_word_[it.addr] = t->second;
  }
  type_names_.reserve(model.types.size());
  for (const model::TypeRecord& t : model.types) {
    type_names_.push_back(pointeeName(t.name, t.size, model.params.ptr_size));
  }
  // Itabs and type descriptors sit together in the executable's read-only
  // data; the range check spares a hash lookup for almost every word.
  for (const auto& [word, t] : type_of_word_) {
    type_word_lo_ = std::min(type_word_lo_, word);
    type_word_hi_ = std::max(type_word_hi_, word);
  }
  if (type_of_word_.empty()) iface_scanned_ = true;  // nothing to find
}

// Calls the interface slots of one pointer-holding range: for each slot whose
// preceding word names a type and whose pointer hits a heap object, records
// (target, type) into iface_types_, or, given `only_target`, stores the
// first type pointing into it in `found` and stops recording.
template <class Fn>
void ObjectNamer::forEachInterface(const uint8_t* contents, Fn&& for_each_slot, NodeId only_target,
                                   uint32_t& found) const {
  const WordReader words = model_.words();
  const uint32_t ptr = model_.params.ptr_size;
  // The GC bitmap marks only an interface's data word, so the itab or type
  // word is read directly: the word before each pointer slot.
  for_each_slot([&](uint64_t off) {
    if (off < ptr || found != UINT32_MAX) return;
    const uint64_t type_word = words.read(contents + off - ptr);
    if (type_word < type_word_lo_ || type_word > type_word_hi_) return;
    auto t = type_of_word_.find(type_word);
    if (t == type_of_word_.end()) return;
    NodeId target = heap_.addresses().find(words.read(contents + off));
    if (target == kNoNode) return;
    if (only_target == kNoNode) {
      iface_types_.emplace_back(target, t->second);
    } else if (target == only_target) {
      found = t->second;
    }
  });
}

void ObjectNamer::scanInterfaces() const {
  if (iface_scanned_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(iface_mutex_);
  if (iface_scanned_.load(std::memory_order_relaxed)) return;
  const model::HeapModel& model = model_;
  uint32_t none = UINT32_MAX;
  for (uint32_t i = 0; i < heap_.objectCount(); i++) {
    forEachInterface(
        model.objectData(i), [&](auto&& fn) { model.forEachObjectSlot(i, fn); }, kNoNode, none);
  }
  auto scan_range = [&](model::ByteRange contents, uint32_t layout) {
    forEachInterface(
        model.bytes(contents).data(), [&](auto&& fn) { model.forEachSlot(layout, fn); }, kNoNode,
        none);
  };
  if (model.data.present) scan_range(model.data.contents, model.data.layout);
  if (model.bss.present) scan_range(model.bss.contents, model.bss.layout);
  for (const model::StackFrame& f : model.frames) scan_range(f.contents, f.layout);
  std::stable_sort(iface_types_.begin(), iface_types_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  iface_types_.erase(std::unique(iface_types_.begin(), iface_types_.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     iface_types_.end());
  iface_scanned_.store(true, std::memory_order_release);
}

// The full scan visits objects by id, then data, bss and frames; the first
// interface found for a target wins. Every slot that points into `object`
// made an edge to it (self edges excepted), and predecessors list referrers
// by node id, which puts objects, data, bss and frames in that same order;
// so visiting the object itself at its place among them, and the referrers
// whose slots the full scan reads, finds the same first interface.
uint32_t ObjectNamer::interfaceTypeFromReferrers(NodeId object) const {
  const model::HeapModel& model = model_;
  uint32_t found = UINT32_MAX;
  auto scan_object = [&](NodeId o) {
    referrer_work_ += model.objects.size[o] / model.params.ptr_size + 1;
    forEachInterface(
        model.objectData(o), [&](auto&& fn) { model.forEachObjectSlot(o, fn); }, object, found);
  };
  auto scan_range = [&](model::ByteRange contents, uint32_t layout) {
    referrer_work_ += contents.size / model.params.ptr_size + 1;
    forEachInterface(
        model.bytes(contents).data(), [&](auto&& fn) { model.forEachSlot(layout, fn); }, object,
        found);
  };
  bool self_done = false;
  NodeId previous = kNoNode;
  if (heap_.predecessorsIfComputed() == nullptr) {
    // referrersOf reads every edge: about one word's decoding per 8 edges.
    referrer_work_ += heap_.successors.edgeCount() / 8;
  }
  for (NodeId p : heap_.referrersOf(object)) {
    if (found != UINT32_MAX) break;
    if (p == previous) continue;
    previous = p;
    if (!self_done && p > object) {
      self_done = true;
      scan_object(object);
      if (found != UINT32_MAX) break;
    }
    if (heap_.isObject(p)) {
      scan_object(p);
      continue;
    }
    switch (heap_.rootKind(p)) {
      case graph::RootKind::DataSegment:
        scan_range(model.data.contents, model.data.layout);
        break;
      case graph::RootKind::BssSegment:
        scan_range(model.bss.contents, model.bss.layout);
        break;
      case graph::RootKind::StackFrame: {
        const model::StackFrame& f = model.frames[heap_.rootRecord(p)];
        scan_range(f.contents, f.layout);
        break;
      }
      default:
        break;  // goroutines, finalizers and the rest have no slots the scan reads
    }
  }
  if (!self_done && found == UINT32_MAX) scan_object(object);
  return found;
}

int64_t ObjectNamer::bucketOf(NodeId object) const {
  const auto* p = findByObject(samples_, object);
  return p == nullptr ? -1 : static_cast<int64_t>(p->second);
}

std::string_view ObjectNamer::interfaceTypeOf(NodeId object) const {
  if (!iface_scanned_.load(std::memory_order_acquire)) {
    std::unique_lock lock(iface_mutex_);
    if (!iface_scanned_.load(std::memory_order_relaxed)) {
      if (referrer_work_ <= heap_.objectCount()) {
        const uint32_t t = interfaceTypeFromReferrers(object);
        return t == UINT32_MAX ? std::string_view() : std::string_view(type_names_[t]);
      }
      lock.unlock();
      scanInterfaces();
    }
  }
  const auto* p = findByObject(iface_types_, object);
  return p == nullptr ? std::string_view() : std::string_view(type_names_[p->second]);
}

std::string_view ObjectNamer::closureFunction(NodeId object) const {
  if (exe_ == nullptr || model_.objects.size[object] < model_.params.ptr_size) return {};
  const uint64_t first = model_.words().read(model_.objectData(object));
  if (first < text_lo_ || first > text_hi_) return {};
  const bin::Func* f = exe_->functionEntry(first);
  return f == nullptr ? std::string_view() : f->name;
}

std::string ObjectNamer::shapeName(NodeId object) const {
  std::string offsets;
  size_t shown = 0, total = 0;
  model_.forEachObjectSlot(object, [&](uint64_t off) {
    total++;
    if (shown < 6) {
      if (shown > 0) offsets += ",";
      offsets += std::to_string(off);
      shown++;
    }
  });
  std::string name = std::to_string(model_.objects.size[object]) + " B [";
  if (total == 0) return name + "no ptrs]";
  name += "ptr " + offsets;
  if (total > shown) name += ",+" + std::to_string(total - shown);
  return name + "]";
}

uint64_t ObjectNamer::shapeHash(NodeId object) const {
  // Word at a time: multiply and fold the high bits down. Shapes are told
  // apart by this 64-bit hash alone, so it must spread every bit of each
  // offset, but needs no more than that.
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&h](uint64_t v) {
    h = (h ^ v) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  };
  mix(model_.objects.size[object]);
  model_.forEachObjectSlot(object, [&](uint64_t off) { mix(off + 1); });
  return h;
}

std::string ObjectNamer::typeName(NodeId object) const {
  if (types_ == nullptr || !types_->typed(object)) return {};
  return typing::typeName(*types_, object, *exe_->typeTable(), *exe_, model_);
}

std::string ObjectNamer::name(NodeId object, NameSource* source) const {
  if (model_.objects.isSpanMetadata(object)) {
    if (source) *source = NameSource::Runtime;
    return std::string(model::spanMetadataName(model_.objects.span_metadata[object]));
  }
  if (std::string t = typeName(object); !t.empty()) {
    if (source) *source = NameSource::Type;
    return t;
  }
  int64_t b = bucketOf(object);
  if (b >= 0) {
    if (source) *source = NameSource::Site;
    return site_names_[static_cast<size_t>(b)];
  }
  if (std::string_view fn = closureFunction(object); !fn.empty()) {
    if (source) *source = NameSource::Closure;
    return "closure " + std::string(fn);
  }
  std::string_view t = interfaceTypeOf(object);
  if (!t.empty()) {
    if (source) *source = NameSource::Interface;
    return std::string(t);
  }
  if (source) *source = NameSource::Shape;
  return shapeName(object);
}

Grouping ObjectNamer::group(GroupKind kind) const {
  if (kind == GroupKind::Name || kind == GroupKind::Type) scanInterfaces();
  Grouping g;
  const uint32_t n = heap_.objectCount();
  assignLarge(g.group_of, n, 0u);
  std::unordered_map<uint64_t, uint32_t> shape_group;
  std::vector<uint32_t> site_group(site_names_.size(), UINT32_MAX);
  std::unordered_map<std::string_view, uint32_t> site_by_name;
  std::unordered_map<std::string_view, uint32_t> iface_group;
  std::unordered_map<std::string_view, uint32_t> closure_group;
  std::unordered_map<std::string, uint32_t> type_group;
  std::unordered_map<uint8_t, uint32_t> metadata_group;
  auto new_group = [&g](std::string name, NameSource s) {
    g.names.push_back(std::move(name));
    g.sources.push_back(s);
    return static_cast<uint32_t>(g.names.size() - 1);
  };
  size_t si = 0, ii = 0;  // cursors into the by-object sorted tables
  for (NodeId o = 0; o < n; o++) {
    while (si < samples_.size() && samples_[si].first < o) si++;
    while (ii < iface_types_.size() && iface_types_[ii].first < o) ii++;
    if (model_.objects.isSpanMetadata(o)) {
      const uint8_t bits = model_.objects.span_metadata[o];
      auto [it, inserted] = metadata_group.try_emplace(bits, 0);
      if (inserted) {
        it->second = new_group(std::string(model::spanMetadataName(bits)), NameSource::Runtime);
      }
      g.group_of[o] = it->second;
      continue;
    }
    if (kind == GroupKind::Type && types_ != nullptr && types_->typed(o)) {
      std::string t = typeName(o);
      auto [it, inserted] = type_group.try_emplace(t, 0);
      if (inserted) it->second = new_group(std::move(t), NameSource::Type);
      g.group_of[o] = it->second;
      continue;
    }
    if (kind != GroupKind::Shape && si < samples_.size() && samples_[si].first == o) {
      uint32_t b = samples_[si].second;
      if (site_group[b] == UINT32_MAX) {
        // Buckets that differ only above the named frame share one group.
        auto [it, inserted] = site_by_name.try_emplace(site_names_[b], 0);
        if (inserted) it->second = new_group(site_names_[b], NameSource::Site);
        site_group[b] = it->second;
      }
      g.group_of[o] = site_group[b];
      continue;
    }
    if (kind == GroupKind::Name || kind == GroupKind::Type) {
      if (std::string_view fn = closureFunction(o); !fn.empty()) {
        auto [it, inserted] = closure_group.try_emplace(fn, 0);
        if (inserted) it->second = new_group("closure " + std::string(fn), NameSource::Closure);
        g.group_of[o] = it->second;
        continue;
      }
    }
    if ((kind == GroupKind::Name || kind == GroupKind::Type) && ii < iface_types_.size() &&
        iface_types_[ii].first == o) {
      std::string_view t = type_names_[iface_types_[ii].second];
      auto [it, inserted] = iface_group.try_emplace(t, 0);
      if (inserted) it->second = new_group(std::string(t), NameSource::Interface);
      g.group_of[o] = it->second;
      continue;
    }
    auto [it, inserted] = shape_group.try_emplace(shapeHash(o), 0);
    if (inserted) it->second = new_group(shapeName(o), NameSource::Shape);
    g.group_of[o] = it->second;
  }
  return g;
}

uint64_t ObjectNamer::heldBytes() const {
  auto strings = [](const std::vector<std::string>& v) {
    uint64_t n = v.capacity() * sizeof(std::string);
    for (const std::string& s : v) n += s.capacity() > 15 ? s.capacity() : 0;
    return n;
  };
  std::lock_guard<std::mutex> lock(iface_mutex_);
  return samples_.capacity() * sizeof(samples_[0]) +
         iface_types_.capacity() * sizeof(iface_types_[0]) + strings(site_names_) +
         strings(type_names_) +
         type_of_word_.size() * (sizeof(std::pair<uint64_t, uint32_t>) + 2 * sizeof(void*));
}

}  // namespace goheap::typing
