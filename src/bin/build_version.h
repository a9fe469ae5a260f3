// The Go version of an executable that has neither build info (added in Go
// 1.13) nor symbols (stripped): the linker stores it in the runtime's own
// string variable, runtime.buildVersion (cmd/link's addstrdata: the string
// header, pointer and length, in data or noptrdata; its bytes, "go1.5", in
// read-only data). Without the symbol the header is found by what it is: a
// pointer-aligned (pointer, length) pair in the module's data whose target
// lies in read-only data and reads as a Go version, and agrees with the
// pclntab's layout. A version string alone is no evidence (any program may
// hold "go1.9" in its rodata), and two different headers are no answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bin/binary.h"
#include "bin/container.h"
#include "bin/pclntab.h"

namespace goheap::bin {

// Longer is not a Go version string, wherever it was found.
constexpr uint64_t kMaxVersionLength = 128;

// "go1.5", "go1.12.17", "go1.10beta1", "go1.21rc2", each optionally with
// the experiments the linker appends (" X:fieldtrack"), or a "devel ..."
// version: what runtime.buildVersion holds.
bool isGoVersionString(std::string_view s);

// The version runtime.buildVersion's header gives, when exactly one
// distinct version is found that way in the data `layout` names (else in
// the container's data sections, else its writable segments) and agrees
// with `pclntab`; nullopt otherwise.
std::optional<std::string> goVersionFromStringHeader(const Container& c,
                                                     const std::optional<ModuleLayout>& layout,
                                                     PclntabLayout pclntab);

}  // namespace goheap::bin
