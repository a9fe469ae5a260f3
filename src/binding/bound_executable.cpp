#include "binding/bound_executable.h"

#include <algorithm>
#include <map>

#include "bin/inline.h"
#include "bin/type_descriptors.h"
#include "util/format.h"

namespace goheap::binding {

using namespace bin;  // this file reads the executable throughout

namespace {

// The dump's frames are checked against the executable up to this many: a
// wrong executable shows itself in the first few, and big dumps have
// hundreds of thousands of frames.
constexpr size_t kMaxFramesChecked = 20000;

// Below this share of frames naming the executable's function at their PC,
// the executable is not the one that wrote the dump. (A match is expected
// for every frame; the slack is for runtime frames a future Go names
// differently.)
constexpr double kMinFrameMatchShare = 0.9;

std::string range(uint64_t begin, uint64_t size) {
  return formatHexRange(begin, begin + size);
}

// Compares one of the dump's segments with the executable's range for it.
Status checkSegment(std::string_view name, const model::Segment& seg, uint64_t lo, uint64_t hi,
                    uint64_t bias) {
  if (!seg.present || hi <= lo) return Status::success();
  if (seg.addr - bias == lo && seg.contents.size == hi - lo) return Status::success();
  std::string msg = "the dump's " + std::string(name) + " segment is " +
                    range(seg.addr, seg.contents.size) + " but the executable's is " +
                    range(lo + bias, hi - lo);
  if (bias != 0) msg += " (at load bias " + formatHex(bias) + ")";
  return Error(msg);
}

// The load bias the dump's frames vote for: each frame's function entry at
// run time minus the executable's entry of the function of that name.
std::optional<uint64_t> biasFromFrames(
    const std::unordered_map<std::string_view, const Func*>& by_name, const model::HeapModel& d) {
  std::map<uint64_t, uint64_t> votes;
  uint64_t named = 0;
  for (size_t i = 0; i < d.frames.size() && i < kMaxFramesChecked; ++i) {
    const model::StackFrame& fr = d.frames[i];
    if (fr.function.empty() || fr.entry_pc == 0) continue;
    named++;
    auto it = by_name.find(fr.function);
    if (it != by_name.end()) votes[fr.entry_pc - it->second->entry]++;
  }
  if (votes.empty()) return std::nullopt;
  auto best = std::max_element(votes.begin(), votes.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  if (static_cast<double>(best->second) < kMinFrameMatchShare * static_cast<double>(named)) {
    return std::nullopt;
  }
  return best->first;
}

// The type descriptors the heap names, at link time: the itabs' types,
// finalizers' and panics' types, and the first word of every object that
// may start with a malloc header (Go 1.22+: more than 8 words per pointer
// bit, at most 32 KiB, holding pointers; a word that is not a descriptor
// address is dropped by the reader's bounds). The reader reads these
// beside the ones its lists reach.
// The malloc headers are read only for an executable without DWARF, which
// is when the descriptors are read (a pass over every object otherwise
// spent for nothing).
std::vector<uint64_t> descriptorRoots(const model::HeapModel& d, uint64_t bias, bool with_headers) {
  std::vector<uint64_t> roots;
  for (const model::ItabRecord& it : d.itabs) roots.push_back(it.type_addr - bias);
  for (const model::Finalizer& f : d.finalizers) roots.push_back(f.obj_type - bias);
  for (const model::Panic& p : d.panics) roots.push_back(p.eface_type - bias);
  if (!with_headers) return roots;
  const uint32_t ptr = d.params.ptr_size;
  const uint64_t threshold = uint64_t{ptr} * ptr * 8;
  const auto words = d.words();
  for (size_t o = 0; o < d.objects.count(); o++) {
    const uint64_t size = d.objects.size[o];
    if (size <= threshold || size > 32768 || !d.objectHasPointers(o)) continue;
    roots.push_back(words.read(d.objectData(o)) - bias);
  }
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

}  // namespace

const DebugInfo* BoundExecutable::typeTable() const {
  if (const DebugInfo* dwarf = exe_->debugInfo()) return dwarf;
  readTypeTable();
  return types_->descriptors.get();
}

const std::string& BoundExecutable::typeTableProblem() const {
  if (exe_->debugInfo() == nullptr) readTypeTable();
  return types_->problem;
}

std::string_view BoundExecutable::typeTableSource() const {
  if (exe_->debugInfo() != nullptr) return "DWARF";
  return typeTable() != nullptr ? "type descriptors" : "";
}

void BoundExecutable::readTypeTable() const {
  std::call_once(types_->once, [&] {
    const std::optional<ModuleLayout>& m = exe_->moduleLayout();
    const GoVersion version = parseGoVersion(exe_->goVersion());
    if (!m || m->types == 0 || !version.minor) {
      types_->problem = exe_->debugInfoProblem() +
                        "; and the runtime's type descriptors cannot be found (no moduledata)";
      return;
    }
    Expected<DebugInfo> t = readTypeDescriptors(exe_->container(), *m, version, types_->roots);
    if (!t) {
      types_->problem = exe_->debugInfoProblem() + "; and " + t.error().message();
      return;
    }
    types_->descriptors = std::make_unique<DebugInfo>(t.take());
  });
}

Expected<BoundExecutable> BoundExecutable::bind(Binary exe, const model::HeapModel& d,
                                                std::optional<uint64_t> known_bias) {
  const Container& c = exe.container();
  const model::Params& p = d.params;
  if (p.ptr_size != c.ptr_size || p.big_endian != c.big_endian) {
    return Error("the executable is for " + std::to_string(c.ptr_size * 8) + "-bit " +
                 (c.big_endian ? "big" : "little") + "-endian machines but the dump is from a " +
                 std::to_string(p.ptr_size * 8) + "-bit " + (p.big_endian ? "big" : "little") +
                 "-endian one");
  }
  if (!p.arch.empty() && c.arch != "unknown" && p.arch != c.arch) {
    return Error("the executable is for " + c.arch + " but the dump is from " +
                 std::string(p.arch));
  }
  if (!p.go_version.empty() && exe.goVersionSource() != "" && p.go_version != exe.goVersion()) {
    return Error("the executable was built by " + exe.goVersion() +
                 " but the dump was written by " + std::string(p.go_version));
  }

  BoundExecutable b;
  b.exe_ = std::make_unique<Binary>(std::move(exe));
  b.by_name_.reserve(b.exe_->pclntab().funcs().size());
  for (const Func& f : b.exe_->pclntab().funcs()) b.by_name_.emplace(f.name, &f);
  const std::optional<ModuleLayout>& layout = b.exe_->moduleLayout();
  std::optional<uint64_t> bias = known_bias ? known_bias : biasFromFrames(b.by_name_, d);
  if (!bias && !d.frames.empty()) {
    return Error(
        "the functions the dump's stack frames name are not where the executable has them");
  }
  if (!bias && layout && d.data.present) bias = d.data.addr - layout->data;
  b.bias_ = bias.value_or(0);

  // Section bounds are only near the runtime's ranges (alignment, other
  // symbols), so only the runtime's own ranges must match exactly.
  if (layout && layout->source != "sections") {
    if (Status s = checkSegment("data", d.data, layout->data, layout->edata, b.bias_); !s) {
      return s.error();
    }
    if (Status s = checkSegment("bss", d.bss, layout->bss, layout->ebss, b.bias_); !s) {
      return s.error();
    }
  }

  const Container& bc = b.exe_->container();
  const bool has_dwarf = !b.exe_->debugFilePath().empty() || bc.section(".debug_info") != nullptr ||
                         bc.section(".zdebug_info") != nullptr ||
                         bc.section("__debug_info") != nullptr ||
                         bc.section("__zdebug_info") != nullptr;
  b.types_->roots = descriptorRoots(d, b.bias_, !has_dwarf);

  for (size_t i = 0; i < d.frames.size() && i < kMaxFramesChecked; ++i) {
    const model::StackFrame& fr = d.frames[i];
    if (fr.function.empty()) continue;
    b.frames_checked_++;
    Expected<Location> loc = b.exe_->pclntab().lookup(fr.pc - b.bias_);
    if (loc && loc->func->name == fr.function) b.frames_matched_++;
  }
  if (static_cast<double>(b.frames_matched_) <
      kMinFrameMatchShare * static_cast<double>(b.frames_checked_)) {
    return Error(std::to_string(b.frames_checked_ - b.frames_matched_) + " of " +
                 std::to_string(b.frames_checked_) +
                 " stack frames of the dump name another function than the executable has at "
                 "their PC");
  }
  return b;
}

Expected<std::vector<SourceFrame>> BoundExecutable::frames(uint64_t pc) const {
  return exe_->symbolize(pc - bias_);
}

std::string BoundExecutable::describeReturnAddress(uint64_t pc) const {
  Expected<std::vector<SourceFrame>> fs = frames(pc);
  if (!fs || fs->empty()) return "";
  const SourceFrame& outer = fs->back();
  std::string s(outer.function);
  if (!outer.file.empty())
    s += " (" + std::string(outer.file) + ":" + std::to_string(outer.line) + ")";
  return s;
}

const Func* BoundExecutable::functionEntry(uint64_t addr) const {
  const Func* f = functionAt(addr);
  return f != nullptr && f->entry == addr - bias_ ? f : nullptr;
}

const Func* BoundExecutable::functionAt(uint64_t addr) const {
  return exe_->pclntab().funcAt(addr - bias_);
}

const Func* BoundExecutable::functionNamed(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<SourceFrame> BoundExecutable::framesOfLine(std::string_view function,
                                                       std::string_view file, int64_t line) const {
  const Func* f = functionNamed(function);
  if (f == nullptr) return {};
  Expected<std::vector<uint64_t>> pcs = exe_->pclntab().pcsOfLine(*f, line);
  if (!pcs) return {};
  for (uint64_t pc : *pcs) {
    Expected<Location> loc = exe_->pclntab().pcToLineIn(*f, pc);
    if (!loc || loc->file != file || pc + 1 >= f->end) continue;
    // symbolize() takes a return address and looks at the byte before it.
    Expected<std::vector<SourceFrame>> frames = exe_->symbolize(pc + 1);
    if (frames && !frames->empty()) return frames.take();
  }
  return {};
}

std::string_view BoundExecutable::inlinedName(std::string_view function, std::string_view file,
                                              int64_t line) const {
  std::vector<SourceFrame> frames = framesOfLine(function, file, line);
  return frames.empty() ? function : frames.front().function;
}

std::optional<GlobalSymbol> BoundExecutable::globalAt(uint64_t addr) const {
  const Symbol* s = exe_->symbols().containing(addr - bias_);
  if (s == nullptr) return std::nullopt;
  return GlobalSymbol{s->name, s->value + bias_, s->size, addr - bias_ - s->value};
}

}  // namespace goheap::binding
