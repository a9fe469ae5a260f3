// core::readCoreModel: a core file read into the same source-neutral model
// a heap dump fills (model/heap_model.h), so that nothing after the reader knows
// which it came from. Region 0 is the core file itself: an object's, a
// frame's or the data segment's bytes are views into it at their file
// offset, never copies.
//
// What goes where:
//  - objects: the heap walk's slots (heap_walk.h) with the pointer words the
//    runtime's GC metadata gives (pointer_masks.h);
//  - data and bss: the first module's segments with their gcdata/gcbss
//    masks (roots.h); other modules' (plugins) are warned about;
//  - goroutines and frames: allgs, each stack unwound with the pclntab
//    (goroutines.h), one frame per physical frame as a dump has them;
//  - finalizers, and cleanups as other roots holding their function;
//  - itabs, so that interface values get their dynamic types;
//  - memstats, those fields the runtime's state gives without the mcache
//    flush ReadMemStats does (memstats.h), the others marked unknown;
//  - params from the core (word size, byte order, GOARCH) and the
//    executable (the Go version).
//
// Each part is read by one stage of core::CoreReader (core_reader.h), which
// `goheap core-info` runs too. Every part the core cannot give whole is a
// warning in HeapModel::warnings with a count, never an error; only a core whose
// heap cannot be found at all is.
#pragma once

#include <functional>
#include <string_view>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/core_reader.h"
#include "model/heap_model.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/sink.h"

namespace goheap::core {

// Reads the process in `core`, whose executable `exe` (checked to belong to
// it, core/executable_match.h) was loaded at its link-time addresses plus
// `bias`. `file` maps the same bytes as `core` and becomes the model's
// region 0, so that the model keeps them mapped. Each stage is a phase of
// `sink`.
Expected<model::HeapModel> readCoreModel(const CoreFile& core, MappedFile file,
                                         const bin::Binary& exe, uint64_t bias,
                                         Sink& sink = nullSink());
// The same with the runtime's layouts and globals already read
// (core/runtime_types.h), for a caller that reads many cores of one
// executable (the fuzzer).
Expected<model::HeapModel> readCoreModel(const CoreFile& core, MappedFile file,
                                         const bin::Binary& exe, uint64_t bias,
                                         const bin::DebugInfo& runtime_types,
                                         Sink& sink = nullSink());
// The same with every stage run by `reader`.
Expected<model::HeapModel> readCoreModel(const CoreReader& reader, MappedFile file,
                                         Sink& sink = nullSink());

}  // namespace goheap::core
