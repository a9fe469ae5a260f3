#include "support/export_support.h"
#include "support/open_heap.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace goheap::testing {

TypedDump loadTypedDump(const std::string& exe) {
  TypedDump d;
  if (!std::filesystem::exists(exe + ".dump")) {
    d.missing = exe + ".dump is missing (tests/programs/make-dumps.sh writes it)";
    return d;
  }
  auto snap = goheap::testing::openSnapshot(exe + ".dump");
  if (!snap.ok()) {
    d.error = snap.error().message();
    return d;
  }
  goheap::testing::SnapshotPtr s = snap.take();
  if (Status a = goheap::testing::reopenWithExecutable(s, exe); !a.ok()) {
    d.error = a.error().message();
    return d;
  }
  if (Status t = goheap::testing::typesOf(*s); !t.ok()) {
    d.error = t.error().message();
    return d;
  }
  d.snapshot = std::move(s);
  return d;
}

std::string writeFormat(const analysis::Snapshot& s, const std::string& format,
                        const exporting::ConvertOptions& options) {
  const exporting::Format* f = exporting::findFormat(format);
  EXPECT_NE(f, nullptr) << format;
  if (f == nullptr) return {};
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(t->test_suite_name()) + "." + t->name() + f->extension;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::string path = ::testing::TempDir() + name;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return {};
  {
    exporting::Output out(file, path);
    Status w = f->write(s, options, out);
    EXPECT_TRUE(w.ok()) << w.error().message();
    Status done = out.finish();
    EXPECT_TRUE(done.ok()) << done.error().message();
  }
  std::fclose(file);
  return path;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeWholeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

int runCommand(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string missingNodePackage(const std::string& package) {
  if (runCommand("node --version >/dev/null 2>&1") != 0) {
    return "node is not installed (scripts/install-deps.sh installs nodejs)";
  }
  if (!std::filesystem::exists(std::string(GOHEAP_NPM_DIR) + "/node_modules/" + package +
                               "/package.json")) {
    return package + " is not installed: run scripts/install-npm-tools.sh " +
           std::string(GOHEAP_NPM_DIR) + " (ctest's install_npm_tools does)";
  }
  return {};
}

}  // namespace goheap::testing
