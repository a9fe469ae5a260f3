#include "support/core_goroutines.h"

#include <utility>

#include "core/executable_match.h"

namespace goheap::testing {

Expected<CoreGoroutines> readCoreGoroutines(const std::string& core_path, const std::string& exe) {
  CoreGoroutines out;
  auto core = core::CoreFile::open(core_path);
  if (!core) return core.error();
  out.core = std::make_unique<core::CoreFile>(std::move(*core));
  auto binary = bin::Binary::open(exe);
  if (!binary) return binary.error();
  out.binary = std::make_unique<bin::Binary>(std::move(*binary));
  auto dwarf = bin::DebugInfo::read(out.binary->container());
  if (!dwarf) return dwarf.error();
  out.dwarf = std::make_unique<bin::DebugInfo>(std::move(*dwarf));
  const core::ExecutableMatch match =
      core::checkExecutable(*out.core, out.binary->container(), exe);
  if (!match.matches()) return Error("core and executable do not match: " + match.mismatch());
  out.bias = match.bias;
  out.mem = std::make_unique<core::MemoryImage>(*out.core, out.binary->container(), match.bias);
  WarningList told(out.warnings);
  auto gs = core::readGoroutines(*out.core, *out.mem, *out.binary, *out.dwarf, match.bias, told);
  if (!gs) return gs.error();
  out.goroutines = std::move(*gs);
  return out;
}

}  // namespace goheap::testing
