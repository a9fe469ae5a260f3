// core::findExecutable over small cores (tests/support/core_builder.h) that
// name real executables: coreprog as make-dumps.sh builds it with two Go
// releases, one the core's program and one another build. Each case checks
// which candidate was taken and why the others were not.
#include "core/find_executable.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "core/notes.h"
#include "support/core_builder.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testsupport::CoreBuilder;

constexpr uint64_t kTextStart = 0x400000;
constexpr uint64_t kStackString = 0x7ffc0000;

std::string testExecutable(const char* release) {
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + release + "/coreprog";
}

// A scratch directory for a core and copies of executables, removed after.
class FindExecutable : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = testExecutable("go1.24");
    other_ = testExecutable("go1.19");
    if (!fs::exists(program_) || !fs::exists(other_)) {
      GTEST_SKIP() << program_ << " or " << other_ << " is missing (make-dumps.sh builds them)";
    }
    Expected<bin::Binary> b = bin::Binary::open(program_);
    ASSERT_TRUE(b) << b.error().message();
    entry_ = b->container().entry;
    std::string tmpl = (fs::temp_directory_path() / "goheap-findexe-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // A core of a non-PIE program whose entry point is `entry_`, mapping
  // `mapped` over its text when not empty, and a string `exec_fn` on the
  // stack pointed to by AT_EXECFN when not empty.
  core::CoreFile makeCore(const std::string& mapped, const std::string& exec_fn = "") {
    CoreBuilder b;
    b.segment(0x10000, std::vector<uint8_t>(64, 0));
    if (!mapped.empty()) {
      b.file(0x1000, 0x2000, 0, "/usr/lib/decoy.so");  // first, but not over the entry
      b.file(kTextStart, kTextStart + 0x100000, 0, mapped);
    }
    if (!exec_fn.empty()) {
      std::vector<uint8_t> text(exec_fn.begin(), exec_fn.end());
      text.push_back(0);
      b.segment(kStackString, text);
      b.aux(core::kAtExecfn, kStackString);
    }
    b.aux(core::kAtEntry, entry_);
    b.process("coreprog", "coreprog report.json");
    bytes_ = b.build();
    Expected<core::CoreFile> c = core::CoreFile::fromBytes(bytes_, corePath());
    EXPECT_TRUE(c) << c.error().message();
    return std::move(*c);
  }
  std::string corePath() const { return dir_ + "/core"; }

  std::string program_, other_, dir_;
  uint64_t entry_ = 0;
  std::vector<uint8_t> bytes_;
};

TEST_F(FindExecutable, TakesTheFileMappedOverTheEntryPoint) {
  const core::CoreFile c = makeCore(program_);
  const core::ExecutableSearch s = core::findExecutable(c, corePath(), std::nullopt);
  ASSERT_NE(s.executable(), nullptr) << s.explain(corePath());
  EXPECT_EQ(s.executable()->path, program_);
  EXPECT_EQ(s.executable()->from, "NT_FILE");
  EXPECT_EQ(s.tried.size(), 1u);
}

TEST_F(FindExecutable, FallsBackOnACopyBesideTheCore) {
  // The process ran a file since deleted; the core was copied off with its
  // program.
  fs::copy_file(program_, dir_ + "/coreprog");
  const core::CoreFile c = makeCore("/srv/gone/coreprog (deleted)");
  const core::ExecutableSearch s = core::findExecutable(c, corePath(), std::nullopt);
  ASSERT_NE(s.executable(), nullptr) << s.explain(corePath());
  EXPECT_EQ(s.executable()->path, dir_ + "/coreprog");
  EXPECT_EQ(s.executable()->from, "beside the core");
  ASSERT_EQ(s.tried.size(), 2u);
  EXPECT_EQ(s.tried[0].path, "/srv/gone/coreprog");
  EXPECT_EQ(s.tried[0].problem, "no such file");
}

TEST_F(FindExecutable, ReadsAtExecfnFromTheCoresMemory) {
  const core::CoreFile c = makeCore("", program_);
  const core::ExecutableSearch s = core::findExecutable(c, corePath(), std::nullopt);
  ASSERT_NE(s.executable(), nullptr) << s.explain(corePath());
  EXPECT_EQ(s.executable()->path, program_);
  EXPECT_EQ(s.executable()->from, "AT_EXECFN");
}

TEST_F(FindExecutable, ABuildThatDoesNotMatchIsNotTaken) {
  // NT_FILE names another build of the program (a redeploy replaced it):
  // its entry point differs, and nothing else is found.
  const core::CoreFile c = makeCore(other_);
  const core::ExecutableSearch s = core::findExecutable(c, corePath(), std::nullopt);
  EXPECT_EQ(s.executable(), nullptr);
  ASSERT_FALSE(s.tried.empty());
  EXPECT_EQ(s.tried[0].path, other_);
  EXPECT_NE(s.tried[0].problem.find("entry"), std::string::npos) << s.tried[0].problem;
  const std::string why = s.explain(corePath());
  EXPECT_NE(why.find(other_ + " (NT_FILE): "), std::string::npos) << why;
  EXPECT_NE(why.find(dir_ + "/coreprog (beside the core): no such file"), std::string::npos) << why;
}

TEST_F(FindExecutable, AGivenExecutableIsTheOnlyOneTried) {
  const core::CoreFile c = makeCore(program_);
  const core::ExecutableSearch wrong = core::findExecutable(c, corePath(), other_);
  EXPECT_EQ(wrong.executable(), nullptr);
  ASSERT_EQ(wrong.tried.size(), 1u);
  EXPECT_EQ(wrong.tried[0].from, "the command line");
  const core::ExecutableSearch right = core::findExecutable(c, corePath(), program_);
  ASSERT_NE(right.executable(), nullptr) << right.explain(corePath());
  EXPECT_EQ(right.executable()->from, "the command line");
}

TEST_F(FindExecutable, ACoreThatNamesNothingSaysSo) {
  CoreBuilder b;
  b.segment(0x10000, std::vector<uint8_t>(64, 0));
  bytes_ = b.build();
  Expected<core::CoreFile> c = core::CoreFile::fromBytes(bytes_, corePath());
  ASSERT_TRUE(c) << c.error().message();
  const core::ExecutableSearch s = core::findExecutable(*c, corePath(), std::nullopt);
  EXPECT_EQ(s.executable(), nullptr);
  EXPECT_TRUE(s.tried.empty());
  EXPECT_NE(s.explain(corePath()).find("names none"), std::string::npos);
}

}  // namespace
}  // namespace goheap
