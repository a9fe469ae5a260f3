#include "sql/built_tables.h"

#include <array>

#include "analysis/globals.h"
#include "analysis/goroutine_info.h"
#include "analysis/histogram.h"
#include "analysis/labels.h"

namespace goheap::sql {

namespace {

Value integer(uint64_t v) {
  return static_cast<int64_t>(v);
}
Value textOrNull(std::string s) {
  if (s.empty()) return std::monostate{};
  return s;
}

// One row per pointer a root holds: a global's, a frame's, a goroutine's.
BuiltRows buildRoots(const SqlHeap& heap) {
  const analysis::Snapshot& s = heap.snapshot();
  BuiltRows out;
  std::vector<RefRow> refs;
  for (NodeId r = s.heap.objectCount(); r < s.heap.nodeCount(); r++) {
    if (r == s.heap.superRoot()) continue;
    refsFrom(s, r, refs);
    const analysis::NodeLabel root = analysis::labelNode(s, r);
    for (const RefRow& ref : refs) {
      std::string name = root.name;
      Value offset, address, field;
      if (ref.offset) {
        const analysis::NodeLabel holder = analysis::labelHolder(s, r, ref.slot_address);
        name = holder.global.empty() ? holder.name : holder.global;
        offset = integer(*ref.offset);
        address = integer(ref.slot_address);
        field = textOrNull(analysis::slotField(s, r, *ref.offset, ref.slot_address));
      }
      out.rows.push_back(
          {integer(r), root.kind, std::move(name), integer(ref.to), offset, address, field});
    }
  }
  return out;
}

// Calls fn(i, g) for each goroutine g, i its index in the model (and the
// graph's goroutine node order).
template <typename Fn>
void forEachGoroutine(const SqlHeap& heap, Fn fn) {
  const std::vector<analysis::GoroutineInfo>& gs = heap.session().goroutineInfos();
  for (uint32_t i = 0; i < gs.size(); i++) fn(i, gs[i]);
}

BuiltRows buildGoroutines(const SqlHeap& heap) {
  const analysis::Snapshot& s = heap.snapshot();
  BuiltRows out;
  forEachGoroutine(heap, [&](uint32_t i, const analysis::GoroutineInfo& g) {
    Value created_by, created_file, created_line;
    if (g.created_by) {
      created_by = g.created_by->function;
      created_file = g.created_by->file;
      created_line = g.created_by->line;
    }
    out.rows.push_back({integer(g.id), g.status_name, textOrNull(g.wait_reason),
                        integer(g.wait_since), integer(g.is_system ? 1 : 0), integer(g.retained),
                        integer(g.g_addr), created_by, created_file, created_line,
                        integer(s.heap.goroutineNode(i)), integer(g.frames.size()),
                        integer(g.leaked ? 1 : 0), textOrNull(g.blocked_in)});
  });
  return out;
}

BuiltRows buildFrames(const SqlHeap& heap) {
  const analysis::Snapshot& s = heap.snapshot();
  BuiltRows out;
  forEachGoroutine(heap, [&](uint32_t i, const analysis::GoroutineInfo& g) {
    for (uint32_t k = 0; k < g.frames.size(); k++) {
      const analysis::FrameInfo& f = g.frames[k];
      std::string inlined;
      for (const analysis::SourceLine& in : f.inlined) {
        if (!inlined.empty()) inlined += "; ";
        inlined += in.function + " " + in.file + ":" + std::to_string(in.line);
      }
      Value file = textOrNull(f.file), line;
      if (f.line != 0) line = f.line;
      out.rows.push_back({integer(g.id), integer(k), f.function, file, line, integer(f.pc),
                          integer(f.frame_size), integer(f.retained),
                          integer(s.heap.frameNode(s.model.goroutines[i].first_frame + k)),
                          textOrNull(inlined)});
    }
  });
  return out;
}

BuiltRows buildGlobals(const SqlHeap& heap) {
  const analysis::Snapshot& s = heap.snapshot();
  BuiltRows out;
  const model::HeapModel& d = s.model;
  for (const analysis::GlobalInfo& g : analysis::findGlobals(s, "", SIZE_MAX)) {
    const bool in_data = g.address >= d.data.addr && g.address - d.data.addr < d.data.contents.size;
    const NodeId root = in_data ? heap.dataNode() : heap.bssNode();
    const uint64_t base = in_data ? d.data.addr : d.bss.addr;
    Value root_value = root == kNoNode ? Value{} : integer(root);
    out.rows.push_back({g.name, integer(g.address), integer(g.size), textOrNull(g.type),
                        integer(g.pointer_count), root_value, integer(g.address - base)});
  }
  return out;
}

BuiltRows buildTypes(const SqlHeap& heap) {
  BuiltRows out;
  for (const analysis::HistogramRow& r : heap.session().groupTotals(typing::GroupKind::Type).rows) {
    if (r.count == 0) continue;  // a group of garbage or runtime metadata only
    out.rows.push_back(
        {r.name, r.source, integer(r.count), integer(r.shallow), integer(r.retained)});
  }
  return out;
}

BuiltRows buildSites(const SqlHeap& heap) {
  const analysis::Snapshot& s = heap.snapshot();
  const model::HeapModel& d = s.model;
  BuiltRows out;
  for (uint32_t b = 0; b < d.buckets.size(); b++) {
    const model::ProfileBucket& bucket = d.buckets[b];
    std::string stack;
    Value function, file, line;
    for (uint32_t i = 0; i < bucket.frame_count; i++) {
      const model::ProfileFrame& f = d.profile_frames[bucket.first_frame + i];
      if (!stack.empty()) stack += '\n';
      stack += std::string(f.function) + " " + std::string(f.file) + ":" + std::to_string(f.line);
      if (std::holds_alternative<std::monostate>(function) &&
          !typing::isRuntimeFunction(f.function)) {
        function = std::string(f.function);
        file = std::string(f.file);
        line = integer(f.line);
      }
    }
    out.rows.push_back({integer(b), s.namer().siteName(b), function, file, line, stack,
                        integer(bucket.size), integer(bucket.allocs), integer(bucket.frees)});
  }
  return out;
}

BuiltRows buildMappings(const SqlHeap& heap) {
  const model::HeapModel& d = heap.snapshot().model;
  BuiltRows out;
  if (!d.process_memory) return out;
  for (const model::ProcessMapping& m : d.process_memory->mappings) {
    Value resident;
    if (m.resident) resident = integer(*m.resident);
    out.rows.push_back({integer(m.start), integer(m.size()), resident, m.perms, textOrNull(m.path),
                        std::string(model::memoryCategoryName(m.mainCategory()))});
  }
  return out;
}

const std::array<BuiltTableSpec, static_cast<size_t>(BuiltTable::Count)>& specs() {
  auto spec = [](const TableSchema& schema, BuiltRows (*build)(const SqlHeap&)) {
    return BuiltTableSpec{schema, indexedColumns(schema), build};
  };
  // In BuiltTable's order.
  static const std::array<BuiltTableSpec, static_cast<size_t>(BuiltTable::Count)> table = {
      spec(kRootsTable, buildRoots),       spec(kGoroutinesTable, buildGoroutines),
      spec(kFramesTable, buildFrames),     spec(kGlobalsTable, buildGlobals),
      spec(kTypesTable, buildTypes),       spec(kSitesTable, buildSites),
      spec(kMappingsTable, buildMappings),
  };
  return table;
}

}  // namespace

const BuiltTableSpec& builtTableSpec(BuiltTable table) {
  return specs()[static_cast<size_t>(table)];
}

}  // namespace goheap::sql
