// The goheap binary as a user runs it (GOHEAP_BINARY): exit codes, help and
// usage errors, how bad input is reported, and --json output checked against
// the report of the program that wrote the dump (tests/programs/retention),
// not against goheap's own earlier output.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::JsonValue;
namespace fs = std::filesystem;
using testing::RunResult;
using testing::scratch;

RunResult run(const std::vector<std::string>& args) {
  return testing::runGoheap(args);
}

const char* const kCommands[] = {"summary",    "top",      "dom",  "paths", "obj",
                                 "goroutines", "suspects", "dups", "waste"};
// Commands that read more than one dump (the checks of one-dump commands
// above do not fit them; their own tests cover them).
const char* const kMultiDumpCommands[] = {"diff", "report"};

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeWholeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The whole of stdout must be one JSON document: the parser rejects anything
// after it.
JsonValue parseJson(const RunResult& r) {
  try {
    return JsonValue::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON document: " << e.what() << "\n" << r.describe();
    return JsonValue();
  }
}

// ---- help and usage errors ---------------------------------------------------

TEST(CliHelp, EveryCommandsHelpHasUsageAndExamples) {
  std::vector<const char*> all(std::begin(kCommands), std::end(kCommands));
  all.insert(all.end(), std::begin(kMultiDumpCommands), std::end(kMultiDumpCommands));
  for (const char* cmd : all) {
    SCOPED_TRACE(cmd);
    for (const char* flag : {"--help", "-h"}) {
      RunResult r = run({cmd, flag});
      ASSERT_TRUE(r.exited) << r.describe();
      EXPECT_EQ(r.code, 0) << r.describe();
      EXPECT_TRUE(contains(r.out, std::string("usage: goheap ") + cmd)) << r.describe();
      EXPECT_TRUE(contains(r.out, "examples:")) << r.describe();
      EXPECT_TRUE(contains(r.out, "--json")) << r.describe();
      EXPECT_EQ(r.err, "");
    }
    // `goheap help CMD` is the same text.
    RunResult h = run({"help", cmd});
    EXPECT_EQ(h.code, 0) << h.describe();
    EXPECT_EQ(h.out, run({cmd, "--help"}).out);
  }
}

TEST(CliHelp, NoArgumentsIsAUsageErrorWithTheUsageOnStderr) {
  RunResult r = run({});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "usage: goheap")) << r.describe();
}

TEST(CliHelp, HelpListsAllSixCommands) {
  for (const char* word : {"help", "--help", "-h"}) {
    RunResult r = run({word});
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, 0) << r.describe();
    std::set<std::string> listed;
    for (const std::string& line : lines(r.out)) {
      // "  summary     what the dump holds..."
      if (line.size() > 2 && line.starts_with("  ") && line[2] != ' ') {
        listed.insert(line.substr(2, line.find(' ', 2) - 2));
      }
    }
    for (const char* cmd : kCommands) EXPECT_TRUE(listed.count(cmd)) << cmd << "\n" << r.out;
  }
}

TEST(CliHelp, UnknownCommandSuggestsTheClosestOne) {
  const std::map<std::string, std::string> typos = {{"sumary", "summary"},
                                                    {"tpo", "top"},
                                                    {"doms", "dom"},
                                                    {"path", "paths"},
                                                    {"goroutine", "goroutines"}};
  for (const auto& [typo, meant] : typos) {
    RunResult r = run({typo, std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump"});
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, 2) << r.describe();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("goheap: unknown command '" + typo + "'")) << r.describe();
    EXPECT_TRUE(contains(r.err, "did you mean '" + meant + "'")) << r.describe();
  }
}

TEST(CliHelp, UnknownFlagIsAUsageErrorWithASuggestion) {
  const std::string dump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
  for (const char* cmd : kCommands) {
    SCOPED_TRACE(cmd);
    std::vector<std::string> args{cmd, dump};
    if (std::string(cmd) == "paths" || std::string(cmd) == "obj") args.push_back("0xc000092180");
    args.push_back("--jsno");
    RunResult r = run(args);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, 2) << r.describe();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("goheap: ")) << r.describe();
    EXPECT_TRUE(contains(r.err, "did you mean")) << r.describe();
    EXPECT_TRUE(contains(r.err, "--json")) << r.describe();
  }
}

TEST(CliHelp, MissingDumpArgumentIsAUsageError) {
  for (const char* cmd : kCommands) {
    RunResult r = run({cmd});
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.describe();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("goheap: ")) << r.describe();
  }
}

// ---- bad input ------------------------------------------------------------------

const std::string kFixture =
    std::string(GOHEAP_SOURCE_DIR) + "/tests/fixtures/go1.24-amd64/retention.dump";

// Every command on `path` fails cleanly: exit 1 (no signal), nothing on
// stdout, one line on stderr that starts "goheap: " and names the file, with
// "offset" (and `offset_text`, when given) for a file that is read and found
// wrong.
void expectEveryCommandFailsCleanly(const std::string& path, bool with_offset,
                                    const std::string& offset_text = "",
                                    const std::string& what = "") {
  for (const char* cmd : kCommands) {
    for (bool json : {false, true}) {
      SCOPED_TRACE(std::string(cmd) + (json ? " --json" : ""));
      std::vector<std::string> args{cmd, path};
      if (std::string(cmd) == "paths" || std::string(cmd) == "obj") args.push_back("0xc000010000");
      args.push_back("--no-progress");
      if (json) args.push_back("--json");
      RunResult r = run(args);
      ASSERT_TRUE(r.exited) << "crashed: " << r.describe();
      EXPECT_EQ(r.code, 1) << r.describe();
      EXPECT_EQ(r.out, "") << "stdout must stay empty on failure";
      const std::vector<std::string> err = lines(r.err);
      ASSERT_EQ(err.size(), 1u) << r.describe();
      EXPECT_TRUE(err[0].starts_with("goheap: ")) << err[0];
      EXPECT_TRUE(contains(err[0], path)) << "does not name the file: " << err[0];
      if (with_offset) {
        EXPECT_TRUE(contains(err[0], "offset")) << err[0];
        if (!offset_text.empty()) {
          EXPECT_TRUE(contains(err[0], offset_text)) << err[0];
        }
      }
      if (!what.empty()) {
        EXPECT_TRUE(contains(err[0], what)) << err[0];
      }
    }
  }
}

TEST(CliBadInput, MissingFile) {
  expectEveryCommandFailsCleanly(scratch().file("no-such.dump"), false, "", "cannot open");
}

TEST(CliBadInput, Directory) {
  const std::string dir = scratch().file("a-directory");
  fs::create_directories(dir);
  expectEveryCommandFailsCleanly(dir, false, "", "not a regular file");
}

TEST(CliBadInput, EmptyFile) {
  const std::string path = scratch().file("empty.dump");
  writeWholeFile(path, "");
  expectEveryCommandFailsCleanly(path, true, "offset 0 ", "not a Go heap dump");
}

TEST(CliBadInput, FileThatIsNotADump) {
  const std::string path = scratch().file("notes.txt");
  writeWholeFile(path, "these are my notes, not a heap dump\nsecond line\n");
  expectEveryCommandFailsCleanly(path, true, "offset 0 ", "not a Go heap dump");
}

TEST(CliBadInput, TruncatedRealDump) {
  const std::string whole = readWholeFile(kFixture);
  ASSERT_GT(whole.size(), 1000u) << kFixture;
  const std::string path = scratch().file("half.dump");
  writeWholeFile(path, whole.substr(0, whole.size() / 2));
  expectEveryCommandFailsCleanly(path, true);
}

TEST(CliBadInput, RealDumpWithACorruptedFieldKind) {
  // Find an object record with a pointer field; its field list starts right
  // after the contents, with a kind byte of 1 (Ptr). Make it 9, which no
  // version has.
  auto d = dump::readDumpFile(kFixture);
  ASSERT_TRUE(d.ok()) << d.error().message();
  uint64_t at = 0;
  std::string bytes = readWholeFile(kFixture);
  for (size_t i = 0; i < d->objects.count(); i++) {
    // A dump's objects are in its file, region 0: offsets are file offsets.
    const uint64_t fl = d->objects.offset[i] + d->objects.size[i];
    if (fl < bytes.size() && bytes[fl] == 1) {
      at = fl;
      break;
    }
  }
  ASSERT_NE(at, 0u) << "no object with a field list in " << kFixture;
  bytes[at] = 9;
  const std::string path = scratch().file("corrupt.dump");
  writeWholeFile(path, bytes);
  expectEveryCommandFailsCleanly(path, true, "offset " + std::to_string(at) + " ", "field kind 9");
}

TEST(CliBadInput, RealDumpWithACorruptedParamsBool) {
  // Byte 17 is the params record's big-endian bool (the header is 16 bytes,
  // the tag one).
  std::string bytes = readWholeFile(kFixture);
  ASSERT_EQ(bytes.substr(0, 17), std::string("go1.7 heap dump\n\x06"));
  bytes[17] = 0x7f;
  const std::string path = scratch().file("bad-params.dump");
  writeWholeFile(path, bytes);
  expectEveryCommandFailsCleanly(path, true, "offset 17 ", "params");
}

TEST(CliBadInput, AddressInNoObject) {
  const std::string dump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
  for (const char* cmd : {"paths", "obj"}) {
    for (const char* addr : {"0x10", "0xffffffffffff0000"}) {
      SCOPED_TRACE(std::string(cmd) + " " + addr);
      RunResult r = run({cmd, dump, addr, "--no-progress"});
      ASSERT_TRUE(r.exited) << r.describe();
      EXPECT_EQ(r.code, 1) << r.describe();
      EXPECT_EQ(r.out, "");
      ASSERT_EQ(lines(r.err).size(), 1u) << r.describe();
      EXPECT_EQ(r.err, std::string("goheap: no object contains address ") + addr + "\n");
    }
  }
  RunResult r = run({"dom", dump, "--from", "0x10", "--no-progress"});
  EXPECT_EQ(r.code, 1) << r.describe();
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "goheap: no object contains address 0x10\n");
}

TEST(CliBadInput, BadAddressSyntaxIsAUsageError) {
  RunResult r = run({"obj", std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump", "0xzz"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("goheap: ")) << r.describe();
}

// ---- --json against the program's own report --------------------------------------

class CliOnRetentionDump : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
    dump_ = dir_ + "/retention.dump";
    ASSERT_TRUE(fs::exists(dump_)) << dump_ << " is missing: tests/programs/make-dumps.sh makes it";
    report_ = JsonValue::parseFile(dir_ + "/retention.json");
  }

  // goheap CMD DUMP ARGS... --json --no-progress: exit 0, nothing on stderr,
  // and stdout is one JSON document.
  JsonValue json(const std::string& cmd, std::vector<std::string> args = {}) {
    std::vector<std::string> all{cmd, dump_};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--json");
    all.push_back("--no-progress");
    RunResult r = run(all);
    EXPECT_TRUE(r.exited && r.code == 0) << r.describe();
    EXPECT_EQ(r.err, "") << r.describe();
    return parseJson(r);
  }
  uint64_t addr(const std::string& label) const {
    return report_["objects"][label]["addr"].hexAddress();
  }

  std::string dir_;
  std::string dump_;
  JsonValue report_;
};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

TEST_P(CliOnRetentionDump, SummaryNamesTheProgramsPlatform) {
  JsonValue s = json("summary");
  EXPECT_EQ(s["ptr_size"].u64(), report_["ptr_size"].u64());
  EXPECT_EQ(s["arch"].str(), report_["goarch"].str());
  EXPECT_EQ(s["go_version"].str(), report_["go_version"].str());
  EXPECT_EQ(s["big_endian"].boolean(), report_["big_endian"].boolean());
  EXPECT_EQ(s["format_version"].str(), "go1.7");
  const JsonValue& o = s["objects"];
  EXPECT_EQ(o["count"].u64(), o["reachable_count"].u64() + o["garbage_count"].u64());
  EXPECT_EQ(o["bytes"].u64(), o["reachable_bytes"].u64() + o["garbage_bytes"].u64());
  // The program made at least this much garbage after the last GC.
  EXPECT_GE(o["garbage_count"].u64(), report_["garbage"]["count_at_least"].u64());
  EXPECT_GE(s["roots"]["goroutines"].u64(), report_["goroutines"].size());
  EXPECT_GE(s["roots"]["finalizers"].u64(), report_["finalizers"].size());
  EXPECT_EQ(s["top_retainers"].size(), 10u);
}

TEST_P(CliOnRetentionDump, ObjAtEachReportedAddressHasTheReportedSize) {
  size_t checked = 0;
  for (const auto& [label, obj] : report_["objects"].members()) {
    SCOPED_TRACE(label);
    const uint64_t a = obj["addr"].hexAddress();
    JsonValue o = json("obj", {hex(a), "--bytes", "0", "--referrers", "0"});
    ASSERT_EQ(o.kind(), JsonValue::Kind::Object);
    EXPECT_EQ(o["object"]["kind"].str(), "object");
    EXPECT_TRUE(o["reachable"].boolean());
    EXPECT_GE(o["retained"].u64(), o["size"].u64());
    const uint64_t start = o["object"]["address"].hexAddress();
    if (label.starts_with("str_")) {
      // String data may share a size-class slot with other data: the object
      // contains the address.
      EXPECT_LE(start, a);
      EXPECT_LT(a, start + o["size"].u64());
    } else {
      EXPECT_EQ(start, a);
      EXPECT_EQ(o["size"].u64(), obj["size"].u64());
    }
    checked++;
  }
  EXPECT_GE(checked, 100u);
}

TEST_P(CliOnRetentionDump, ObjAddressInsideAnObjectNamesTheObject) {
  const uint64_t a = addr("tree_root");
  JsonValue o = json("obj", {hex(a + 8)});
  EXPECT_EQ(o["object"]["address"].hexAddress(), a);
}

TEST_P(CliOnRetentionDump, PathsFollowTheReportedChain) {
  ASSERT_GT(report_["paths"].size(), 0u);
  for (const JsonValue& p : report_["paths"].items()) {
    JsonValue r = json("paths", {p["target_addr"].str()});
    EXPECT_EQ(r["target"]["address"].hexAddress(), p["target_addr"].hexAddress());
    EXPECT_TRUE(r["reachable"].boolean());
    ASSERT_GT(r["paths"].size(), 0u);
    const JsonValue& first = r["paths"][0];
    const uint64_t hops = p["hops"].u64();
    ASSERT_EQ(first.size(), hops + 1);
    // The global's segment, then chain_0 .. chain_{hops-1}, the last being
    // the target.
    const std::string root_kind = first[0]["node"]["kind"].str();
    EXPECT_TRUE(root_kind == "bss segment" || root_kind == "data segment") << root_kind;
    EXPECT_TRUE(first[0].has("offset"));
    for (size_t i = 1; i <= hops; i++) {
      const JsonValue& step = first[i]["node"];
      EXPECT_EQ(step["kind"].str(), "object");
      EXPECT_EQ(step["address"].hexAddress(), addr("chain_" + std::to_string(i - 1))) << i;
    }
    EXPECT_EQ(first[hops]["node"]["address"].hexAddress(), p["target_addr"].hexAddress());
    // Every step but the last names the word that points on.
    for (size_t i = 0; i < hops; i++) {
      ASSERT_TRUE(first[i].has("offset")) << i;
      if (i > 0) {
        EXPECT_EQ(first[i]["slot_address"].hexAddress(),
                  first[i]["node"]["address"].hexAddress() + first[i]["offset"].u64());
      }
    }
    EXPECT_FALSE(first[hops].has("offset"));
    // Paths come shortest first.
    for (size_t i = 1; i < r["paths"].size(); i++) {
      EXPECT_GE(r["paths"][i].size(), r["paths"][i - 1].size());
    }
  }
}

TEST_P(CliOnRetentionDump, GoroutinesHaveTheReportedWaitReasons) {
  JsonValue r = json("goroutines");
  std::map<uint64_t, const JsonValue*> by_id;
  for (const JsonValue& g : r["goroutines"].items()) by_id[g["id"].u64()] = &g;
  uint64_t hold_buffer = 0;
  for (const JsonValue& want : report_["goroutines"].items()) {
    const uint64_t id = want["id"].u64();
    SCOPED_TRACE("goroutine " + std::to_string(id));
    auto it = by_id.find(id);
    ASSERT_NE(it, by_id.end()) << "missing";
    const JsonValue& g = *it->second;
    EXPECT_FALSE(g["system"].boolean());
    if (want.has("label") && want["label"].str() == "hold_buffer") hold_buffer = id;
    if (want["state"].str() == "running") continue;  // the goroutine writing the dump
    EXPECT_EQ(g["wait_reason"].str(), want["state"].str());
    EXPECT_EQ(g["status_name"].str(), "waiting");
    bool has_top_function = false;
    for (const JsonValue& f : g["frames"].items()) {
      has_top_function |= f["function"].str() == want["top_function"].str();
    }
    EXPECT_TRUE(has_top_function) << want["top_function"].str();
  }
  // The stack of main.holdBuffer alone keeps its buffer.
  ASSERT_NE(hold_buffer, 0u);
  EXPECT_GE((*by_id[hold_buffer])["retained"].u64(),
            report_["structures"]["held_buffer"]["bytes"].u64());
}

// DUMP EXE: the program's executable names globals, frames and creators.
TEST_P(CliOnRetentionDump, WithTheExecutableGlobalsFramesAndCreatorsAreNamed) {
  const std::string exe = dir_ + "/retention";
  JsonValue sum = json("summary", {exe});
  EXPECT_TRUE(sum["executable"]["used"].boolean());
  EXPECT_EQ(sum["executable"]["frames_matched"].u64(), sum["executable"]["frames_checked"].u64());

  // EXE between DUMP and ADDR: the address is told apart by its form.
  const JsonValue& want = report_["paths"][0];
  JsonValue paths = json("paths", {exe, want["target_addr"].str()});
  EXPECT_EQ(paths["paths"][0][0]["node"]["global"].str(), want["global"].str());

  JsonValue gs = json("goroutines", {exe});
  std::map<uint64_t, const JsonValue*> by_id;
  for (const JsonValue& g : gs["goroutines"].items()) by_id[g["id"].u64()] = &g;
  size_t labelled = 0;
  for (const JsonValue& w : report_["goroutines"].items()) {
    if (!w.has("label") || w["label"].str() == "main") continue;
    labelled++;
    SCOPED_TRACE("goroutine " + std::to_string(w["id"].u64()));
    const JsonValue& g = *by_id.at(w["id"].u64());
    EXPECT_EQ(g["created_by"]["function"].str(), "main.main");
    EXPECT_GT(g["frames"].size(), 0u);
    for (const JsonValue& f : g["frames"].items()) {
      EXPECT_FALSE(f["file"].str().empty());
      EXPECT_GT(f["line"].u64(), 0u);
    }
  }
  EXPECT_GT(labelled, 0u) << "the report lists no goroutine that main started";
}

// With an executable that has DWARF, top groups by type and obj decodes
// fields: checked against the zoo program's report of what it stored.
class CliTypes : public ::testing::TestWithParam<std::string> {};

TEST_P(CliTypes, TopByTypeAndObjFieldsOnTheZoo) {
  const std::string exe = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/zoo";
  const JsonValue report = JsonValue::parseFile(exe + ".json");
  RunResult top = run({"top", exe + ".dump", exe, "-n", "0", "--json", "--no-progress"});
  ASSERT_TRUE(top.exited && top.code == 0) << top.describe();
  JsonValue t = parseJson(top);
  EXPECT_EQ(t["by"].str(), "type");
  std::set<std::string> groups;
  for (const JsonValue& row : t["rows"].items()) {
    if (row["source"].str() == "type") groups.insert(row["name"].str());
  }
  for (const char* want : {"main.Outer", "main.Session", "map[string]int", "chan int", "string"}) {
    EXPECT_TRUE(groups.count(want)) << want;
  }
  uint64_t outer = 0;
  for (const JsonValue& v : report["values"].items()) {
    if (v["type"].str() == "main.Outer") outer = v["addr"].hexAddress();
  }
  RunResult obj = run({"obj", exe + ".dump", exe, hex(outer), "--json", "--no-progress"});
  ASSERT_TRUE(obj.exited && obj.code == 0) << obj.describe();
  JsonValue o = parseJson(obj);
  EXPECT_EQ(o["type"].str(), "main.Outer");
  std::map<std::string, std::string> fields;
  for (const JsonValue& f : o["fields"].items()) fields[f["path"].str()] = f["value"].str();
  EXPECT_EQ(fields["In.Count"], "41");
  EXPECT_EQ(fields["Base.Note"], "embedded note");
  RunResult text = run({"obj", exe + ".dump", exe, hex(outer), "--no-progress"});
  EXPECT_NE(text.out.find("\"embedded note\""), std::string::npos) << text.describe();
}

INSTANTIATE_TEST_SUITE_P(Zoo, CliTypes, ::testing::ValuesIn(testing::everyGoVersion()),
                         testing::pathParamName);

// Stripped: a note on stderr, names from the dump alone, exit 0.
class CliStripped : public ::testing::TestWithParam<std::string> {};

// Without DWARF the types come from the runtime's type descriptors, and the
// summary says so.
TEST_P(CliStripped, AStrippedBuildIsTypedFromItsTypeDescriptors) {
  const std::string stripped =
      std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/stripped/funcs";
  RunResult s = run({"summary", stripped + ".dump", stripped, "--no-progress", "--no-cache"});
  EXPECT_TRUE(s.exited && s.code == 0) << s.describe();
  EXPECT_EQ(s.err.find("no types from the executable"), std::string::npos) << s.describe();
  EXPECT_NE(s.out.find("from the runtime's type descriptors"), std::string::npos) << s.describe();
  RunResult j = run({"summary", stripped + ".dump", stripped, "--json", "--no-progress"});
  EXPECT_NE(j.out.find("\"source\": \"descriptors\""), std::string::npos) << j.describe();
}

INSTANTIATE_TEST_SUITE_P(Funcs, CliStripped, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

TEST_P(CliOnRetentionDump, ABrokenExecutableIsAWarningAndTheDumpIsStillAnswered) {
  const std::string broken = scratch().file("broken-exe");
  const std::string exe = readWholeFile(dir_ + "/retention");
  writeWholeFile(broken, exe.substr(0, 4096));
  RunResult r = run({"summary", dump_, broken, "--no-progress"});
  EXPECT_TRUE(r.exited && r.code == 0) << r.describe();
  EXPECT_NE(r.err.find("warning: not using the executable: " + broken), std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("carrying on from the heap alone"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("executable not used: " + broken), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("Top retainers"), std::string::npos) << r.describe();

  // Another Go's build of the same program: refused, with both versions said.
  const std::string other_go = GetParam() == "go1.19" ? "go1.24" : "go1.19";
  RunResult other =
      run({"goroutines", dump_, std::string(GOHEAP_TESTDUMPS_DIR) + "/" + other_go + "/retention",
           "--no-progress"});
  EXPECT_TRUE(other.exited && other.code == 0) << other.describe();
  EXPECT_NE(other.err.find("built by " + other_go), std::string::npos) << other.describe();
}

TEST_P(CliOnRetentionDump, DomFromTheTreeRootRetainsTheTreesBytes) {
  const JsonValue& tree = report_["structures"]["retained_tree"];
  JsonValue r = json("dom", {"--from", tree["root_addr"].str(), "-d", "0"});
  ASSERT_EQ(r["rows"].size(), 1u);
  const JsonValue& row = r["rows"][0];
  EXPECT_EQ(row["depth"].u64(), 0u);
  EXPECT_EQ(row["node"]["address"].hexAddress(), tree["root_addr"].hexAddress());
  EXPECT_EQ(row["retained"].u64(), tree["bytes"].u64());
  EXPECT_EQ(row["hidden_children"].u64(), row["children"].u64());

  // The whole subtree, every level and every child: exactly the tree's nodes.
  JsonValue all = json("dom", {"--from", tree["root_addr"].str(), "-d", "100", "--min-bytes", "0",
                               "--max-children", "100000"});
  EXPECT_EQ(all["rows"].size(), tree["count"].u64());
  uint64_t shallow = 0;
  for (const JsonValue& x : all["rows"].items()) {
    shallow += x["shallow"].u64();
    EXPECT_EQ(x["hidden_children"].u64(), 0u);
  }
  EXPECT_EQ(shallow, tree["bytes"].u64());
}

TEST_P(CliOnRetentionDump, TopCountsEveryReachableObjectOnce) {
  const JsonValue s = json("summary");
  for (const char* by : {"site", "shape"}) {
    SCOPED_TRACE(by);
    JsonValue t = json("top", {"--by", by, "-n", "0"});
    EXPECT_EQ(t["by"].str(), by);
    EXPECT_EQ(t["rows"].size(), t["groups"].u64());
    uint64_t count = 0, shallow = 0;
    for (const JsonValue& row : t["rows"].items()) {
      count += row["count"].u64();
      shallow += row["shallow"].u64();
      EXPECT_LE(row["retained"].u64(), s["objects"]["reachable_bytes"].u64());
    }
    EXPECT_EQ(count, s["objects"]["reachable_count"].u64());
    EXPECT_EQ(t["total_count"].u64(), s["objects"]["reachable_count"].u64());
    EXPECT_EQ(shallow, s["objects"]["reachable_bytes"].u64());
    EXPECT_EQ(t["total_shallow"].u64(), s["objects"]["reachable_bytes"].u64());
  }
}

TEST_P(CliOnRetentionDump, TopCsvHasAHeaderAndOneLinePerJsonRow) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{}, {"-n", "0"}, {"--by", "shape", "-n", "7"}}) {
    JsonValue j = json("top", args);
    std::vector<std::string> all{"top", dump_};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--csv");
    RunResult r = run(all);
    ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
    const std::vector<std::string> csv = lines(r.out);
    ASSERT_FALSE(csv.empty());
    EXPECT_TRUE(csv[0].starts_with("retained,shallow,count,from,")) << csv[0];
    EXPECT_EQ(csv.size() - 1, j["rows"].size()) << r.out;
    if (csv.size() > 1) {
      EXPECT_TRUE(csv[1].starts_with(std::to_string(j["rows"][0]["retained"].u64()) + "," +
                                     std::to_string(j["rows"][0]["shallow"].u64()) + ","))
          << csv[1];
    }
  }
}

TEST_P(CliOnRetentionDump, JsonAndCsvTogetherAreAUsageError) {
  RunResult r = run({"top", dump_, "--json", "--csv"});
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_EQ(r.out, "");
}

TEST_P(CliOnRetentionDump, TimingsGoToStderrAndLeaveJsonAlone) {
  // Without the cache, which an earlier test in the same process may have
  // filled: the phases of a first read are the ones asked about.
  RunResult text = run({"summary", dump_, "--timings", "--no-progress", "--no-cache"});
  ASSERT_TRUE(text.exited && text.code == 0) << text.describe();
  for (const char* phase : {"read dump", "build graph", "dominators", "retained sizes", "total"}) {
    EXPECT_TRUE(contains(text.err, phase)) << phase << "\n" << text.err;
    EXPECT_FALSE(contains(text.out, phase)) << phase;
  }
  // Where the memory went: the peak no file backs, and the arrays by name.
  for (const char* line : {"peak anonymous memory: ", "held after loading", "objects.addr",
                           "graph.successors", "dominators.idom"}) {
    EXPECT_TRUE(contains(text.err, line)) << line << "\n" << text.err;
  }
  for (const char* cmd : kCommands) {
    SCOPED_TRACE(cmd);
    std::vector<std::string> args{cmd, dump_};
    if (std::string(cmd) == "paths" || std::string(cmd) == "obj") {
      args.push_back(report_["structures"]["retained_tree"]["root_addr"].str());
    }
    args.insert(args.end(), {"--json", "--timings", "--no-progress"});
    RunResult r = run(args);
    ASSERT_TRUE(r.exited && r.code == 0) << r.describe();
    JsonValue v = parseJson(r);
    EXPECT_EQ(v.kind(), JsonValue::Kind::Object);
    ASSERT_TRUE(v.has("schema_version"));
    EXPECT_EQ(v["schema_version"].u64(), 1u);
    // The first command reads the dump and computes everything; the others
    // read the index cache it wrote.
    EXPECT_TRUE((contains(r.err, "read dump") && contains(r.err, "dominators")) ||
                contains(r.err, "read index cache"))
        << r.err;
  }
}

TEST_P(CliOnRetentionDump, JsonOutputOfEveryCommandIsOneDocumentAndNothingElse) {
  const std::string root = report_["structures"]["retained_tree"]["root_addr"].str();
  EXPECT_EQ(json("summary").kind(), JsonValue::Kind::Object);
  EXPECT_EQ(json("top").kind(), JsonValue::Kind::Object);
  EXPECT_EQ(json("dom").kind(), JsonValue::Kind::Object);
  EXPECT_EQ(json("paths", {root}).kind(), JsonValue::Kind::Object);
  EXPECT_EQ(json("obj", {root}).kind(), JsonValue::Kind::Object);
  EXPECT_EQ(json("goroutines").kind(), JsonValue::Kind::Object);
}

INSTANTIATE_TEST_SUITE_P(Retention, CliOnRetentionDump, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
