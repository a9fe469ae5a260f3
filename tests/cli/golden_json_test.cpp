// Golden files of goheap's own output: every case of tests/golden/cases.txt
// is run (the real binary, in the repository root, as a user runs it) and
// its stdout compared byte for byte with NAME.out, its exit status and
// stderr with NAME.err (absent: exit 0, nothing on stderr). They pin the
// --json documents of every command, and the errors, so that a change meant
// not to alter any output (a refactoring) is checked against the output of
// the code before it. The files are goheap's own earlier output, not an
// independent oracle: what they hold right is checked by the other tests.
// scripts/update-golden.sh regenerates them, only when a change of output is
// intended.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/goheap_process.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = GOHEAP_SOURCE_DIR;
const std::string kGoldenDir = kSourceDir + "/tests/golden";

struct GoldenCase {
  std::string name;
  std::vector<std::string> args;  // @TMP@ not yet replaced
  int line = 0;                   // in cases.txt
};

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The cases of cases.txt, in its order; none if it cannot be read (the
// test ManifestListsTheCasesOfTheGoldenFiles then fails).
std::vector<GoldenCase> loadCases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(kGoldenDir + "/cases.txt");
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::vector<std::string> w = words(line);
    if (w.empty() || w[0].starts_with("#")) continue;
    GoldenCase c;
    c.name = w[0];
    c.args.assign(w.begin() + 1, w.end());
    c.line = number;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

// A unified-diff-like excerpt of where `actual` departs from `expected`:
// the first differing hunk with three lines of context, each side cut at
// 20 lines.
std::string diffExcerpt(const std::string& expected, const std::string& actual) {
  const std::vector<std::string> a = lines(expected), b = lines(actual);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  constexpr size_t kContext = 3, kShown = 20;
  auto shown = [](const std::string& l) {
    return l.ends_with('\n') ? l : l + "\n\\ no newline at end\n";
  };
  const size_t from = prefix > kContext ? prefix - kContext : 0;
  std::string out = "--- expected (golden file)\n+++ actual\n@@ line " + std::to_string(from + 1) +
                    " (" + std::to_string(a.size()) + " lines expected, " +
                    std::to_string(b.size()) + " actual) @@\n";
  for (size_t i = from; i < prefix; ++i) out += " " + shown(a[i]);
  auto side = [&](const std::vector<std::string>& v, char mark) {
    const size_t end = v.size() - suffix;
    for (size_t i = prefix; i < end && i < prefix + kShown; ++i) out += mark + shown(v[i]);
    if (end > prefix + kShown) {
      out += mark + std::string("... ") + std::to_string(end - prefix - kShown) + " more lines\n";
    }
  };
  side(a, '-');
  side(b, '+');
  const size_t tail = std::min(kContext, suffix);
  for (size_t i = a.size() - suffix; i < a.size() - suffix + tail; ++i) out += " " + shown(a[i]);
  return out;
}

std::string commandLine(const std::vector<std::string>& args) {
  std::string s = "goheap";
  for (const std::string& a : args) s += " " + a;
  return s;
}

class GoldenJson : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenJson, PrintsWhatTheGoldenFileHolds) {
  const GoldenCase& c = GetParam();
  // A scratch directory of the case's own for @TMP@ (files it writes).
  const std::string tmp = testing::scratch().file("golden-" + c.name);
  fs::create_directories(tmp);
  std::vector<std::string> args;
  for (std::string a : c.args) {
    for (size_t at = a.find("@TMP@"); at != std::string::npos; at = a.find("@TMP@")) {
      a.replace(at, 5, tmp);
    }
    args.push_back(std::move(a));
  }
  SCOPED_TRACE("cases.txt line " + std::to_string(c.line) + ": " + commandLine(c.args));

  const std::optional<std::string> expected_out = readFile(kGoldenDir + "/" + c.name + ".out");
  ASSERT_TRUE(expected_out) << "no " << c.name
                            << ".out: run scripts/update-golden.sh BUILD_DIR for a new case";
  int expected_code = 0;
  std::string expected_err;
  if (std::optional<std::string> err = readFile(kGoldenDir + "/" + c.name + ".err")) {
    const size_t nl = err->find('\n');
    const std::string first = err->substr(0, nl);
    ASSERT_TRUE(first.starts_with("exit ")) << c.name << ".err starts with " << first;
    expected_code = std::stoi(first.substr(5));
    expected_err = nl == std::string::npos ? "" : err->substr(nl + 1);
  }

  const testing::RunResult r = testing::runGoheapIn(kSourceDir, args);
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, expected_code) << "stderr:\n" << r.err;
  if (r.out != *expected_out) {
    ADD_FAILURE() << "stdout differs from " << c.name << ".out\n"
                  << diffExcerpt(*expected_out, r.out);
  }
  if (r.err != expected_err) {
    ADD_FAILURE() << "stderr differs from " << c.name << ".err\n"
                  << diffExcerpt(expected_err, r.err);
  }
  fs::remove_all(tmp);
}

std::string caseName(const ::testing::TestParamInfo<GoldenCase>& p) {
  return testing::testName(p.param.name);
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenJson, ::testing::ValuesIn(loadCases()), caseName);

// The manifest and the folder agree: every case has its file, every file
// its case, and names stay distinct as test names.
TEST(GoldenFiles, ManifestListsTheCasesOfTheGoldenFiles) {
  const std::vector<GoldenCase> cases = loadCases();
  ASSERT_FALSE(cases.empty()) << "no cases in " << kGoldenDir << "/cases.txt";
  std::set<std::string> names, test_names;
  for (const GoldenCase& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name << " is listed twice";
    EXPECT_TRUE(test_names.insert(testing::testName(c.name)).second)
        << c.name << " makes the same test name as another case";
    EXPECT_FALSE(c.args.empty()) << c.name << " has no arguments";
    EXPECT_TRUE(fs::exists(kGoldenDir + "/" + c.name + ".out")) << c.name;
  }
  uint64_t bytes = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kGoldenDir)) {
    bytes += e.file_size();
    const std::string file = e.path().filename().string();
    const std::string ext = e.path().extension().string();
    if (file == "cases.txt") continue;
    EXPECT_TRUE(ext == ".out" || ext == ".err") << "unexpected file " << file;
    EXPECT_TRUE(names.count(e.path().stem().string())) << file << " belongs to no case";
  }
  // Small enough to keep in the repository.
  EXPECT_LT(bytes, 2u << 20);
}

}  // namespace
}  // namespace goheap
