// Helpers for the tests of `goheap convert`'s formats (tests/export/): a
// real dump loaded with its executable, a format written to a file, and
// the rule for external tools (node, memlab, Graphviz): a test that needs
// one skips when it is missing, which fails a CI run (CI=true) as every
// skip does that tests/skip-allowlist.txt does not allow.
#pragma once

#include <memory>
#include <string>

#include "analysis/snapshot.h"
#include "export/formats.h"
#include "support/open_heap.h"

namespace goheap::testing {

// EXE.dump analysed, with EXE attached and typed, or why not: the dump is
// missing (a skip: make-dumps.sh writes it, and CI fails a skip the
// allowlist does not allow), or goheap failed to open or type it (a
// failure: that is goheap's fault, never the machine's).
struct TypedDump {
  goheap::testing::SnapshotPtr snapshot;
  std::string missing;  // the missing file, when the dump is missing
  std::string error;    // goheap's error, when it failed
};
TypedDump loadTypedDump(const std::string& exe);

// Writes `format` to a fresh file under the test's temporary directory and
// returns its path.
std::string writeFormat(const analysis::Snapshot& s, const std::string& format,
                        const exporting::ConvertOptions& options = {});

std::string readWholeFile(const std::string& path);
// Writes `text` to `path`, replacing it; a test failure when it cannot.
void writeWholeFile(const std::string& path, const std::string& text);

// Runs a shell command line; its exit status (-1 when it could not run).
int runCommand(const std::string& command);

// Why a test that runs `package` (an npm package, "@memlab/core") under
// node cannot run here: node missing, or the package not installed in the
// build's npm/ folder (ctest's install_npm_tools installs it). Empty when
// it can.
std::string missingNodePackage(const std::string& package);

}  // namespace goheap::testing

// Inside a test: skip when a tool is missing (a failure under CI=true,
// tests/support/test_main.cpp).
#define GOHEAP_REQUIRE_TOOL(available, message)  \
  do {                                           \
    if (!(available)) GTEST_SKIP() << (message); \
  } while (0)
