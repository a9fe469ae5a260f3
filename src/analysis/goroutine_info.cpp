#include "analysis/goroutine_info.h"

#include <algorithm>

#include "analysis/goroutine_leaks.h"
#include "goruntime/goroutine_status.h"

namespace goheap::analysis {

std::vector<GoroutineInfo> goroutines(const Snapshot& s) {
  return goroutines(s, findGoroutineLeaks(s));
}

std::vector<GoroutineInfo> goroutines(const Snapshot& s, const GoroutineLeaks& leaks) {
  const model::HeapModel& d = s.model;
  std::vector<GoroutineInfo> out;
  out.reserve(d.goroutines.size());
  for (uint32_t i = 0; i < d.goroutines.size(); i++) {
    const model::Goroutine& g = d.goroutines[i];
    GoroutineInfo info;
    const bool is_main = g.goid == 1;  // the runtime names no creator for it
    info.record = i;
    info.id = g.goid;
    info.status = g.status;
    info.status_name = std::string(goruntime::gStatusDescription(g.status));
    info.wait_reason = std::string(g.wait_reason);
    info.wait_since = g.wait_since;
    info.is_system = g.is_system;
    info.leaked = !leaks.leaked.empty() && leaks.leaked[i] != 0;
    info.not_leaked_because = std::string(leaks.notLeakedBecause(i));
    info.g_addr = g.addr;
    info.retained = s.retained[s.heap.goroutineNode(i)];
    for (uint32_t f = 0; f < g.frame_count; f++) {
      const uint32_t fi = g.first_frame + f;
      const model::StackFrame& fr = d.frames[fi];
      FrameInfo frame;
      frame.function = std::string(fr.function);
      frame.pc = fr.pc;
      frame.depth = fr.depth;
      frame.frame_size = fr.contents.size;
      frame.retained = s.retained[s.heap.frameNode(fi)];
      if (s.exe) {
        if (auto fs = s.exe->frames(fr.pc); fs && !fs->empty()) {
          frame.file = std::string(fs->back().file);
          frame.line = fs->back().line;
          for (size_t k = 0; k + 1 < fs->size(); k++) {
            const bin::SourceFrame& in = (*fs)[k];
            frame.inlined.push_back({std::string(in.function), std::string(in.file), in.line});
          }
        }
      }
      info.frames.push_back(std::move(frame));
    }
    // With the executable, a function inlined into its go statement's
    // wrapper is the one blocked, not the wrapper.
    info.blocked_in = std::string(blockingFunction(d, g));
    for (const FrameInfo& f : info.frames) {
      auto found = std::find_if(f.inlined.begin(), f.inlined.end(), [](const SourceLine& in) {
        return outsideRuntimeAndSync(in.function);
      });
      if (found != f.inlined.end()) {
        info.blocked_in = found->function;
        break;
      }
      if (outsideRuntimeAndSync(f.function)) break;
    }
    info.created_pc = g.gopc;
    if (s.exe && g.gopc != 0 && !is_main) {
      // As the runtime prints "created by": the physical function, and the
      // innermost source position of the go statement.
      if (auto fs = s.exe->frames(g.gopc); fs && !fs->empty()) {
        info.created_by = SourceLine{std::string(fs->back().function),
                                     std::string(fs->front().file), fs->front().line};
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace goheap::analysis
