// The stages under src/ depend on each other in one direction only: the
// layer table in cmake/layers.cmake (GOHEAP_LAYERS, GOHEAP_DEPS_<layer>) says
// which folders each may use, and CMake writes it to generated/layers.txt.
// Static libraries sharing one include folder do not stop an #include that
// runs back up; this test does. It reads every #include "folder/..." (and
// #include <folder/...> of a layer's folder) under src/ and fails on one the
// table does not allow, on a folder it does not list, and on a table that
// is not bottom up (a layer using one listed after it, which is how a cycle
// would get in).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace goheap {
namespace {

namespace fs = std::filesystem;

struct LayerTable {
  std::vector<std::string> order;                     // bottom up, as listed
  std::map<std::string, std::set<std::string>> uses;  // layer -> may use
};

// "query: util dump bin" per line.
LayerTable parseTable(std::istream& in) {
  LayerTable table;
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string layer = line.substr(0, colon);
    table.order.push_back(layer);
    std::set<std::string>& deps = table.uses[layer];
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;) deps.insert(w);
  }
  return table;
}

LayerTable parseTable(const std::string& text) {
  std::istringstream in(text);
  return parseTable(in);
}

// What is wrong with the table itself: a layer listed twice, or using a
// layer that is not listed before it (so the table has no cycle).
std::vector<std::string> tableProblems(const LayerTable& table) {
  std::vector<std::string> out;
  std::set<std::string> below;
  for (const std::string& layer : table.order) {
    if (below.count(layer) != 0) {
      out.push_back("layer " + layer + " is listed twice");
      continue;
    }
    for (const std::string& dep : table.uses.at(layer)) {
      if (below.count(dep) != 0) continue;
      out.push_back("layer " + layer + " uses " + dep + ", which is " +
                    (table.uses.count(dep) != 0 ? "listed after it" : "not a layer") +
                    "; the table runs bottom up");
    }
    below.insert(layer);
  }
  return out;
}

// The file an #include directive names, with its delimiter ('"' or '<'), or
// nothing when `line` is not one; "  #  include <x>" is one, a comment is not.
std::optional<std::pair<char, std::string>> includedFile(std::string_view line) {
  auto skipSpace = [&line] {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) {
      line.remove_prefix(1);
    }
  };
  skipSpace();
  if (!line.starts_with('#')) return std::nullopt;
  line.remove_prefix(1);
  skipSpace();
  if (!line.starts_with("include")) return std::nullopt;
  line.remove_prefix(7);
  skipSpace();
  if (line.empty() || (line.front() != '"' && line.front() != '<')) return std::nullopt;
  const char open = line.front();
  line.remove_prefix(1);
  const size_t close = line.find(open == '"' ? '"' : '>');
  if (close == std::string_view::npos) return std::nullopt;
  return std::make_pair(open, std::string(line.substr(0, close)));
}

bool isSourceFile(const fs::path& p) {
  static const std::set<std::string> kExtensions = {".h", ".hpp", ".cpp", ".cc", ".inc"};
  return kExtensions.count(p.extension().string()) != 0;
}

// Every breach of `table` under `src`, as "file:line: why".
std::vector<std::string> violations(const fs::path& src, const LayerTable& table) {
  std::vector<std::string> out;
  for (const fs::directory_entry& dir : fs::directory_iterator(src)) {
    if (!dir.is_directory()) {
      if (isSourceFile(dir.path())) {
        out.push_back(dir.path().string() + ": not in a layer's folder");
      }
      continue;
    }
    const std::string layer = dir.path().filename().string();
    const auto rule = table.uses.find(layer);
    if (rule == table.uses.end()) {
      out.push_back(dir.path().string() + ": folder " + layer + " is not in the layer table");
      continue;
    }
    for (const fs::directory_entry& file : fs::recursive_directory_iterator(dir.path())) {
      if (!file.is_regular_file()) continue;
      std::ifstream in(file.path());
      std::string line;
      for (int number = 1; std::getline(in, line); number++) {
        const auto included = includedFile(line);
        if (!included) continue;
        const auto& [open, target] = *included;
        const size_t slash = target.find('/');
        if (slash == std::string::npos) continue;  // beside the file
        const std::string used = target.substr(0, slash);
        // <vector>, <boost/beast.hpp>: not ours. <cli/command.h> is.
        if (open == '<' && table.uses.count(used) == 0) continue;
        if (used == layer || rule->second.count(used) != 0) continue;
        out.push_back(file.path().string() + ":" + std::to_string(number) + ": " + layer +
                      " may not include " + used + " (" + target + "); " + layer +
                      " may use only what the layer table gives it");
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Layering, EveryIncludeFollowsTheLayerTable) {
  std::ifstream in(GOHEAP_LAYERS_FILE);
  ASSERT_TRUE(in) << "no " << GOHEAP_LAYERS_FILE << " (cmake/layers.cmake writes it)";
  const LayerTable table = parseTable(in);
  ASSERT_GE(table.order.size(), 10u);
  for (const std::string& problem : tableProblems(table)) {
    ADD_FAILURE() << GOHEAP_LAYERS_FILE << ": " << problem;
  }
  for (const std::string& v : violations(fs::path(GOHEAP_SOURCE_DIR) / "src", table)) {
    ADD_FAILURE() << v;
  }
}

TEST(Layering, TheTableMustRunBottomUp) {
  EXPECT_TRUE(tableProblems(parseTable("low:\nhigh: low\n")).empty());

  const std::vector<std::string> cycle = tableProblems(parseTable("low: high\nhigh: low\n"));
  ASSERT_EQ(cycle.size(), 1u);
  EXPECT_EQ(cycle[0], "layer low uses high, which is listed after it; the table runs bottom up");

  const std::vector<std::string> unknown = tableProblems(parseTable("low:\nhigh: low mid\n"));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0], "layer high uses mid, which is not a layer; the table runs bottom up");

  EXPECT_EQ(tableProblems(parseTable("low:\nhigh: low\nlow:\n")).size(), 1u);
}

TEST(Layering, OnlyIncludeDirectivesAreRead) {
  using Include = std::pair<char, std::string>;
  EXPECT_EQ(includedFile("#include \"cli/x.h\""), Include('"', "cli/x.h"));
  EXPECT_EQ(includedFile("  #  include <cli/x.h>  // why"), Include('<', "cli/x.h"));
  EXPECT_EQ(includedFile("#include\"x.h\""), Include('"', "x.h"));
  EXPECT_EQ(includedFile("// #include \"cli/x.h\""), std::nullopt);
  EXPECT_EQ(includedFile(" * #include \"cli/x.h\""), std::nullopt);
  EXPECT_EQ(includedFile("#pragma once"), std::nullopt);
  EXPECT_EQ(includedFile("#include MACRO"), std::nullopt);
}

TEST(Layering, TheCheckFindsAnIncludeThatRunsBackUp) {
  const fs::path root =
      fs::temp_directory_path() / ("goheap-layering-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "low");
  fs::create_directories(root / "high");
  // Allowed: its own folder, a layer below in either form, beside itself,
  // headers that are no layer's, and a commented-out include.
  std::ofstream(root / "high" / "a.cpp") << "#include \"low/b.h\"\n"
                                            "#include \"high/c.h\"\n"
                                            "#  include <low/d.h>\n"
                                            "#include \"c.h\"\n"
                                            "#include <vector>\n"
                                            "#include <boost/beast.hpp>\n";
  std::ofstream(root / "low" / "b.h") << "#pragma once\n"
                                         "// #include \"high/c.h\" would run back up\n"
                                         "#include \"high/c.h\"\n"
                                         "  #include <high/e.h>\n";
  const LayerTable table = parseTable("low:\nhigh: low\n");
  const std::vector<std::string> found = violations(root, table);
  ASSERT_EQ(found.size(), 2u);
  const std::string b = (root / "low" / "b.h").string();
  EXPECT_EQ(found[0], b + ":3: low may not include high (high/c.h); low may use only what the " +
                          "layer table gives it");
  EXPECT_EQ(found[1], b + ":4: low may not include high (high/e.h); low may use only what the " +
                          "layer table gives it");

  fs::create_directories(root / "stray");
  std::ofstream(root / "loose.cpp") << "int x;\n";
  std::ofstream(root / "notes.txt") << "not code\n";
  const std::vector<std::string> more = violations(root, table);
  ASSERT_EQ(more.size(), 4u);
  EXPECT_EQ(more[0], (root / "loose.cpp").string() + ": not in a layer's folder");
  EXPECT_EQ(more[3], (root / "stray").string() + ": folder stray is not in the layer table");
  fs::remove_all(root);
}

// The shape issue 27 gave the table: the source-neutral heap model sits right
// above util, with its two readers (dump/ and core/) above it, and the
// executable's reader (bin/) knows nothing of heaps; the two meet in binding/.
TEST(Layering, TheModelIsBelowItsReadersAndBinKnowsOnlyUtil) {
  std::ifstream in(GOHEAP_LAYERS_FILE);
  ASSERT_TRUE(in);
  const LayerTable table = parseTable(in);
  ASSERT_TRUE(table.uses.count("model"));
  const std::set<std::string> util_and_runtime{"util", "goruntime"};
  EXPECT_EQ(table.uses.at("model"), util_and_runtime);
  EXPECT_EQ(table.uses.at("bin"), util_and_runtime);
  for (const char* reader : {"dump", "core"}) {
    EXPECT_TRUE(table.uses.at(reader).count("model")) << reader;
    EXPECT_FALSE(table.uses.at("model").count(reader)) << reader;
  }
  EXPECT_FALSE(table.uses.at("core").count("dump")) << "core reads into the model, not the dump's";
  EXPECT_TRUE(table.uses.at("binding").count("model") && table.uses.at("binding").count("bin"));
}

// What the Go runtime is (goroutine statuses, wait reasons, per-release
// layouts and version decisions) is one layer over util that the readers
// and the analyses read: an analysis asks it, not a core reader.
TEST(Layering, GoRuntimeKnowledgeIsOneLayerOverUtil) {
  std::ifstream in(GOHEAP_LAYERS_FILE);
  ASSERT_TRUE(in);
  const LayerTable table = parseTable(in);
  ASSERT_TRUE(table.uses.count("goruntime"));
  EXPECT_EQ(table.uses.at("goruntime"), std::set<std::string>{"util"});
  for (const char* reader : {"model", "dump", "bin", "core", "typing", "analysis"}) {
    EXPECT_TRUE(table.uses.at(reader).count("goruntime")) << reader;
  }
  for (const char* above_readers : {"analysis", "cache", "export"}) {
    EXPECT_FALSE(table.uses.at(above_readers).count("core")) << above_readers;
    EXPECT_FALSE(table.uses.at(above_readers).count("dump")) << above_readers;
  }
}

}  // namespace
}  // namespace goheap
