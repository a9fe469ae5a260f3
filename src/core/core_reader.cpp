#include "core/core_reader.h"

#include <utility>

namespace goheap::core {

Expected<CoreReader> CoreReader::open(const CoreFile& core, const bin::Binary& exe, uint64_t bias) {
  GOHEAP_TRY(RuntimeTypes types, core::runtimeTypes(exe, MemoryImage(core, exe.container(), bias)));
  auto owned = std::make_unique<const RuntimeTypes>(std::move(types));
  const bin::DebugInfo& info = owned->info();
  return CoreReader(core, exe, bias, std::move(owned), info);
}

CoreReader::CoreReader(const CoreFile& core, const bin::Binary& exe, uint64_t bias,
                       const bin::DebugInfo& runtime_types)
    : CoreReader(core, exe, bias, nullptr, runtime_types) {}

CoreReader::CoreReader(const CoreFile& core, const bin::Binary& exe, uint64_t bias,
                       std::unique_ptr<const RuntimeTypes> owned_types, const bin::DebugInfo& types)
    : core_(core),
      exe_(exe),
      bias_(bias),
      mem_(core, exe.container(), bias),
      owned_types_(std::move(owned_types)),
      types_(&types),
      span_layout_(readRuntimeLayout(types, exe.container().ptr_size)),
      heap_bits_layout_(readHeapBitsLayout(types, exe.container().ptr_size, exe.container().arch)) {
}

Expected<HeapObjects> CoreReader::walkHeap(Sink& told) const {
  if (!span_layout_) return span_layout_.error();
  return core::walkHeap(mem_, *span_layout_, told);
}

Expected<PointerMasks> CoreReader::readPointerMasks(const HeapObjects& heap, Sink& told) const {
  if (!span_layout_) return span_layout_.error();
  if (!heap_bits_layout_) return heap_bits_layout_.error();
  return core::readPointerMasks(mem_, *span_layout_, *heap_bits_layout_, heap, told);
}

Expected<Goroutines> CoreReader::readGoroutines(Sink& told) const {
  return core::readGoroutines(core_, mem_, exe_, *types_, bias_, told);
}

Expected<StackScan> CoreReader::scanStacks(const Goroutines& gs, Sink& told) const {
  return core::scanStacks(gs, mem_, exe_, *types_, bias_, told);
}

Expected<DataRoots> CoreReader::readDataRoots(Sink& told) const {
  return core::readDataRoots(mem_, *types_, told);
}

Expected<Specials> CoreReader::readSpecials(Sink& told) const {
  if (!span_layout_) return span_layout_.error();
  return core::readSpecials(mem_, *span_layout_, *types_, exe_.pclntab(), exe_.goVersion(), told);
}

Expected<MemProfile> CoreReader::readMemProfile(const Specials& specials, Sink& told) const {
  return core::readMemProfile(mem_, *types_, specials, told);
}

Expected<Itabs> CoreReader::readItabs(Sink& told) const {
  return core::readItabs(mem_, *types_, told);
}

Expected<CoreMemStats> CoreReader::readMemStats(const HeapObjects& heap, Sink& told) const {
  return core::readMemStats(mem_, *types_, heap, told);
}

}  // namespace goheap::core
