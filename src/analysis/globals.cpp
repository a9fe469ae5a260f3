#include "analysis/globals.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "analysis/slots.h"
#include "typing/heap_types.h"
#include "util/text.h"

namespace goheap::analysis {

namespace {

constexpr size_t kTargetsShown = 10;

bool inSegment(const model::Segment& seg, uint64_t addr) {
  return seg.present && addr >= seg.addr && addr - seg.addr < seg.contents.size;
}

}  // namespace

std::vector<GlobalInfo> findGlobals(const Snapshot& s, std::string_view filter, size_t limit) {
  std::vector<GlobalInfo> out;
  if (!s.exe) return out;
  const uint64_t bias = s.exe->loadBias();
  const model::HeapModel& d = s.model;
  auto wanted = [&](std::string_view name, uint64_t addr) {
    return (inSegment(d.data, addr) || inSegment(d.bss, addr)) &&
           containsIgnoringCase(name, filter);
  };
  if (const bin::DebugInfo* dwarf = s.exe->typeTable()) {
    for (const bin::GlobalVariable& g : dwarf->globals()) {
      if (!wanted(g.name, g.address + bias)) continue;
      out.push_back({std::string(g.name),
                     g.address + bias,
                     typing::typeSize(*dwarf, g.type, d.params.ptr_size),
                     typing::goTypeName(dwarf->type(g.type).name),
                     {},
                     0});
    }
  } else {
    for (const bin::Symbol& sym : s.exe->binary().container().symbols) {
      if (sym.size == 0 || !wanted(sym.name, sym.value + bias)) continue;
      out.push_back({std::string(sym.name), sym.value + bias, sym.size, "", {}, 0});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const GlobalInfo& a, const GlobalInfo& b) { return a.name < b.name; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const GlobalInfo& a, const GlobalInfo& b) { return a.name == b.name; }),
            out.end());
  if (out.size() > limit) out.resize(limit);
  // What each one points to: the segment's pointer slots inside it. Every
  // global may be listed, so a slot finds the globals that may hold it by
  // address, not by trying each.
  std::vector<uint32_t> by_address(out.size());
  std::iota(by_address.begin(), by_address.end(), 0u);
  std::sort(by_address.begin(), by_address.end(),
            [&](uint32_t a, uint32_t b) { return out[a].address < out[b].address; });
  uint64_t widest = 1;
  for (const GlobalInfo& g : out) widest = std::max(widest, g.size);
  for (NodeId r = s.heap.objectCount(); r < s.heap.nodeCount(); r++) {
    const graph::RootKind kind = s.heap.rootKind(r);
    if (kind != graph::RootKind::DataSegment && kind != graph::RootKind::BssSegment) continue;
    forEachNodeSlot(s, r, [&](uint64_t, uint64_t value, uint64_t slot) {
      if (value == 0) return;
      const NodeId t = s.heap.addresses().find(value);
      if (t == kNoNode) return;
      // The globals starting at or below the slot, nearest first, back to
      // the widest global's reach.
      auto it = std::upper_bound(by_address.begin(), by_address.end(), slot,
                                 [&](uint64_t a, uint32_t g) { return a < out[g].address; });
      while (it != by_address.begin()) {
        GlobalInfo& g = out[*--it];
        if (slot - g.address >= widest) break;
        if (slot - g.address >= std::max<uint64_t>(g.size, 1)) continue;
        g.pointer_count++;
        if (g.points_to.size() < kTargetsShown) g.points_to.push_back(labelNode(s, t));
      }
    });
  }
  return out;
}

}  // namespace goheap::analysis
