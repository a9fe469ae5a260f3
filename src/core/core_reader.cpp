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

Expected<HeapObjects> CoreReader::walkHeap() const {
  if (!span_layout_) return span_layout_.error();
  return core::walkHeap(mem_, *span_layout_);
}

Expected<PointerMasks> CoreReader::readPointerMasks(const HeapObjects& heap) const {
  if (!span_layout_) return span_layout_.error();
  if (!heap_bits_layout_) return heap_bits_layout_.error();
  return core::readPointerMasks(mem_, *span_layout_, *heap_bits_layout_, heap);
}

Expected<Goroutines> CoreReader::readGoroutines() const {
  return core::readGoroutines(core_, mem_, exe_, *types_, bias_);
}

Expected<StackScan> CoreReader::scanStacks(const Goroutines& gs) const {
  return core::scanStacks(gs, mem_, exe_, *types_, bias_);
}

Expected<DataRoots> CoreReader::readDataRoots() const {
  return core::readDataRoots(mem_, *types_);
}

Expected<Specials> CoreReader::readSpecials() const {
  if (!span_layout_) return span_layout_.error();
  return core::readSpecials(mem_, *span_layout_, *types_, exe_.pclntab(), exe_.goVersion());
}

Expected<MemProfile> CoreReader::readMemProfile(const Specials& specials) const {
  return core::readMemProfile(mem_, *types_, specials);
}

Expected<Itabs> CoreReader::readItabs() const {
  return core::readItabs(mem_, *types_);
}

Expected<CoreMemStats> CoreReader::readMemStats(const HeapObjects& heap) const {
  return core::readMemStats(mem_, *types_, heap);
}

}  // namespace goheap::core
