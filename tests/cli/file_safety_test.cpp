// A user's dump is often the only copy of an incident: goheap must never
// destroy a file it reads, never replace a file with half an output, and
// never exit 0 when its output was lost. Each test here is a defect users
// met (issue 12), run through the real binary on the sample dump.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/goheap_process.h"
#include "support/kernel_core.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::runGoheap;
using testing::RunResult;
using testing::scratch;

const std::string kSampleDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
const std::string kSampleExe = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky-linux-amd64";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// A copy of the sample dump and executable in a folder of the test's own,
// so that a defect destroys only the copies.
struct Workspace {
  explicit Workspace(const std::string& name) : dir(scratch().file(name)) {
    fs::create_directories(dir);
    fs::copy_file(kSampleDump, dump(), fs::copy_options::overwrite_existing);
    fs::copy_file(kSampleExe, exe(), fs::copy_options::overwrite_existing);
    dump_bytes = readFile(dump());
    exe_bytes = readFile(exe());
  }
  std::string file(const std::string& name) const { return dir + "/" + name; }
  std::string dump() const { return file("c.dump"); }
  std::string exe() const { return file("server"); }
  void expectInputsIntact() const {
    EXPECT_TRUE(readFile(dump()) == dump_bytes) << "the dump was changed";
    EXPECT_TRUE(readFile(exe()) == exe_bytes) << "the executable was changed";
  }
  // Leftover temporary files would be litter the user has to find.
  void expectNoTemporaries() const {
    for (const auto& entry : fs::directory_iterator(dir)) {
      EXPECT_EQ(entry.path().filename().string().find(".goheap-"), std::string::npos)
          << "left behind: " << entry.path();
    }
  }
  std::string dir;
  std::string dump_bytes, exe_bytes;
};

void expectRefused(const RunResult& r, const std::string& named) {
  ASSERT_TRUE(r.exited) << r.describe();  // SIGBUS was the defect
  // A mistake on the command line (the user chooses another file): exit 2.
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find("refusing to write " + named), std::string::npos) << r.describe();
}

class ConvertOntoInput : public ::testing::TestWithParam<const char*> {};

TEST_P(ConvertOntoInput, LeavesTheDumpAndExecutableWhole) {
  Workspace w(std::string("convert-") + GetParam());
  expectRefused(runGoheap({"convert", w.dump(), "--to", GetParam(), "-o", w.dump()}), w.dump());
  expectRefused(
      runGoheap({"convert", w.dump(), w.exe(), "--to", GetParam(), "-o", w.exe(), "--no-progress"}),
      w.exe());
  w.expectInputsIntact();
  w.expectNoTemporaries();
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, ConvertOntoInput,
                         ::testing::Values("jsonl", "pprof", "hprof", "heapsnapshot"));

TEST(FileSafety, SameFileByAnotherNameIsStillRefused) {
  Workspace w("aliases");
  fs::create_hard_link(w.dump(), w.file("link.dump"));
  fs::create_symlink(w.dump(), w.file("sym.dump"));
  const std::string dotted = w.dir + "/./c.dump";
  for (const std::string& alias : {w.file("link.dump"), w.file("sym.dump"), dotted}) {
    expectRefused(runGoheap({"convert", w.dump(), "--to", "jsonl", "-o", alias}), alias);
  }
  w.expectInputsIntact();
}

TEST(FileSafety, ReportNeverReplacesItsDump) {
  Workspace w("report");
  expectRefused(runGoheap({"report", w.dump(), "--html", w.dump(), "--no-progress"}), w.dump());
  expectRefused(runGoheap({"report", w.dump(), "--html", w.file("r.html"), "--json-file", w.dump(),
                           "--no-progress"}),
                w.dump());
  expectRefused(runGoheap({"report", w.dump(), w.exe(), "--html", w.exe(), "--no-progress"}),
                w.exe());
  w.expectInputsIntact();
  EXPECT_FALSE(fs::exists(w.file("r.html"))) << "nothing is written when one output is refused";
}

TEST(FileSafety, SvgKeepsTheUsersDotFile) {
  // Whether dot is there is asked of the machine, not of goheap: goheap
  // saying "not installed" when it is would be its own failure.
  if (testing::onPath({"dot"}).empty()) GTEST_SKIP() << "Graphviz's dot is not installed";
  Workspace w("svg");
  writeFile(w.file("notes.svg.dot"), "my own notes\n");
  // Any object will do: the dot neighbourhood of the top retainer.
  RunResult summary = runGoheap({"summary", w.dump(), "--json"});
  const size_t key = summary.out.find("\"address\": \"");
  ASSERT_NE(key, std::string::npos) << summary.describe();
  const size_t at = key + 12;
  const std::string addr = summary.out.substr(at, summary.out.find('"', at) - at);
  RunResult r = runGoheap(
      {"convert", w.dump(), "--to", "dot", "--object", addr, "--svg", "-o", w.file("notes.svg")});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(readFile(w.file("notes.svg.dot")), "my own notes\n");
  EXPECT_NE(readFile(w.file("notes.svg")).find("<svg"), std::string::npos);
  w.expectNoTemporaries();
}

TEST(FileSafety, FailedConvertLeavesTheOldOutputWhole) {
  Workspace w("failed");
  writeFile(w.file("out.dot"), "the user's previous graph\n");
  // No object at 0x10: the run fails after the output was prepared.
  RunResult r =
      runGoheap({"convert", w.dump(), "--to", "dot", "--object", "0x10", "-o", w.file("out.dot")});
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_EQ(readFile(w.file("out.dot")), "the user's previous graph\n");
  w.expectNoTemporaries();
}

TEST(FileSafety, ReplacedOutputKeepsItsMode) {
  Workspace w("mode");
  writeFile(w.file("heap.jsonl"), "old\n");
  ASSERT_EQ(::chmod(w.file("heap.jsonl").c_str(), 0640), 0);
  RunResult r = runGoheap({"convert", w.dump(), "--to", "jsonl", "-o", w.file("heap.jsonl")});
  ASSERT_EQ(r.code, 0) << r.describe();
  struct stat st {};
  ASSERT_EQ(::stat(w.file("heap.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_NE(readFile(w.file("heap.jsonl")), "old\n");
}

TEST(FileSafety, StandardOutputIsStillWrittenDirectly) {
  Workspace w("stdout");
  RunResult r = runGoheap({"convert", w.dump(), "--to", "jsonl", "-o", "-"});
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_GT(r.out.size(), 1000u);
}

// ---- writes that fail -----------------------------------------------------------------

struct FullDiskCase {
  const char* name;
  std::vector<std::string> args;  // after the command, before the dump
};

TEST(FileSafety, FullStandardOutputFailsEveryCommand) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const std::vector<std::vector<std::string>> commands = {
      {"summary", kSampleDump},
      {"summary", kSampleDump, "--json"},
      {"top", kSampleDump, "--csv"},
      {"goroutines", kSampleDump},
      {"dups", kSampleDump},
      {"waste", kSampleDump},
      {"bin", kSampleExe},
      {"convert", kSampleDump, "--to", "jsonl", "-o", "-"},
      {"report", kSampleDump, "--json", "--html", scratch().file("full.html")},
  };
  for (const auto& args : commands) {
    RunResult r = runGoheap(args, "/dev/full");
    ASSERT_TRUE(r.exited) << args[0] << ": " << r.describe();
    EXPECT_EQ(r.code, 1) << args[0] << ": " << r.describe();
    EXPECT_NE(r.err.find("cannot write standard output: No space left on device"),
              std::string::npos)
        << args[0] << ": " << r.describe();
  }
}

TEST(FileSafety, ClosedPipeEndsQuietly) {
  const std::string err = scratch().file("pipe.err");
  const std::string command = std::string("'") + GOHEAP_BINARY + "' top '" + kSampleDump +
                              "' -n 1000 --by shape 2>'" + err + "' | head -c 1 >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(readFile(err), "") << "a reader that had enough is not an error worth a message";
}

// ---- inputs that are not files --------------------------------------------------------

TEST(FileSafety, FifoAsDumpIsRefusedAtOnce) {
  const std::string fifo = scratch().file("dump.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"summary", fifo},
        {"bin", fifo},
        {"report", kSampleDump, fifo, "--html", scratch().file("fifo.html")}}) {
    const auto start = std::chrono::steady_clock::now();
    RunResult r = runGoheap(args);  // no writer: a blocking open never returns
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    ASSERT_TRUE(r.exited) << r.describe();
    // As an executable it is only a warning: report carries on without it.
    if (args[0] != "report") {
      EXPECT_EQ(r.code, 1) << r.describe();
    }
    EXPECT_NE(r.err.find("is a FIFO (named pipe), not a regular file"), std::string::npos)
        << r.describe();
  }
}

// ---- messages that say what was wrong ---------------------------------------------------

TEST(FileSafety, NegativeCountIsCalledANegativeNumber) {
  RunResult r = runGoheap({"top", kSampleDump, "-n", "-1"});
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find("invalid value '-1' for -n: expected a whole number"), std::string::npos)
      << r.describe();
}

TEST(FileSafety, MalformedAddressIsNamedNotMissing) {
  RunResult r = runGoheap({"obj", kSampleDump, "0xzz"});
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_EQ(r.err.find("missing ADDR"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("invalid ADDR: '0xzz' is not an address"), std::string::npos)
      << r.describe();
}

TEST(FileSafety, UncreatableOutputSaysWhyBeforeLoading) {
  RunResult r = runGoheap({"convert", kSampleDump, "--to", "jsonl", "-o", "/nonexistent/dir/x"});
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot create /nonexistent/dir/x: No such file or directory"),
            std::string::npos)
      << r.describe();
}

TEST(FileSafety, ReportNamesTheHtmlFileItCannotCreate) {
  RunResult r = runGoheap({"report", kSampleDump, "--html", "/nonexistent/r.html"});
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot create /nonexistent/r.html: No such file or directory"),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(r.err.find("r.json"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace goheap
