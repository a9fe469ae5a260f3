// goheap_runtime_layouts EXE...: prints src/goruntime/runtime_tables.inc, the
// runtime layouts of each executable's Go release and architecture read
// from its DWARF (goruntime/runtime_table.h). regenerate.sh builds the
// executables, one per toolchain and architecture, and runs this.
#include <iostream>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/runtime_table_source.h"

int main(int argc, char** argv) {
  using namespace goheap;
  std::string entries, index;
  for (int i = 1; i < argc; ++i) {
    auto exe = bin::Binary::open(argv[i]);
    if (!exe) {
      std::cerr << argv[i] << ": " << exe.error().message() << "\n";
      return 1;
    }
    auto dwarf = bin::DebugInfo::read(exe->container());
    const std::string arch = exe->container().arch;
    auto source = dwarf ? core::runtimeTableSource(*dwarf, exe->container(), exe->goVersion(), arch)
                        : Expected<std::string>(dwarf.error());
    if (!source) {
      std::cerr << argv[i] << ": " << source.error().message() << "\n";
      return 1;
    }
    entries += *source + "\n";
    const std::string id = goruntime::runtimeTableName(exe->goVersion(), arch);
    const std::string release = id.substr(1, id.size() - arch.size() - 2);
    std::string version = release;
    for (char& c : version) c = c == '_' ? '.' : c;
    index += "    {\"" + version + "\", \"" + arch + "\", " + id + "_structs, " + id + "_fields, " +
             id + "_wait_reasons},\n";
  }
  std::cout << "// The runtime layouts of each Go release and architecture goheap reads\n"
               "// stripped executables of (goruntime/runtime_table.h). Generated from the\n"
               "// toolchains' DWARF by tools/runtime-layouts/regenerate.sh: do not edit.\n"
               "// clang-format off\n"
            << entries << "constexpr goruntime::RuntimeTable kRuntimeTables[] = {\n"
            << index << "};\n// clang-format on\n";
  return 0;
}
