// The stages under src/ depend on each other in one direction only: the
// layer table in cmake/layers.cmake (GOHEAP_LAYERS, GOHEAP_DEPS_<layer>) says
// which folders each may use, and CMake writes it to generated/layers.txt.
// Static libraries sharing one include folder do not stop an #include that
// runs back up; this test does. It reads every #include "folder/..." under
// src/ and fails on one the table does not allow, or on a folder it does not
// list.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace goheap {
namespace {

namespace fs = std::filesystem;

using LayerTable = std::map<std::string, std::set<std::string>>;  // layer -> may use

// "query: util dump bin" per line.
LayerTable parseTable(std::istream& in) {
  LayerTable table;
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::set<std::string>& deps = table[line.substr(0, colon)];
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;) deps.insert(w);
  }
  return table;
}

// Every breach of `table` under `src`, as "file:line: why".
std::vector<std::string> violations(const fs::path& src, const LayerTable& table) {
  std::vector<std::string> out;
  for (const fs::directory_entry& dir : fs::directory_iterator(src)) {
    if (!dir.is_directory()) continue;
    const std::string layer = dir.path().filename().string();
    const auto rule = table.find(layer);
    if (rule == table.end()) {
      out.push_back(dir.path().string() + ": folder " + layer + " is not in the layer table");
      continue;
    }
    for (const fs::directory_entry& file : fs::recursive_directory_iterator(dir.path())) {
      if (!file.is_regular_file()) continue;
      std::ifstream in(file.path());
      std::string line;
      for (int number = 1; std::getline(in, line); number++) {
        const std::string directive = "#include \"";
        const size_t at = line.find(directive);
        if (at == std::string::npos) continue;
        const std::string target = line.substr(at + directive.size());
        const size_t slash = target.find('/');
        if (slash == std::string::npos) continue;
        const std::string used = target.substr(0, slash);
        if (used == layer || rule->second.count(used) != 0) continue;
        out.push_back(file.path().string() + ":" + std::to_string(number) + ": " + layer +
                      " may not include " + used + " (" + target.substr(0, target.find('"')) +
                      "); " + layer + " may use only what the layer table gives it");
      }
    }
  }
  return out;
}

TEST(Layering, EveryIncludeFollowsTheLayerTable) {
  std::ifstream in(GOHEAP_LAYERS_FILE);
  ASSERT_TRUE(in) << "no " << GOHEAP_LAYERS_FILE << " (cmake/layers.cmake writes it)";
  const LayerTable table = parseTable(in);
  ASSERT_GE(table.size(), 10u);
  for (const std::string& v : violations(fs::path(GOHEAP_SOURCE_DIR) / "src", table)) {
    ADD_FAILURE() << v;
  }
}

TEST(Layering, TheCheckFindsAnIncludeThatRunsBackUp) {
  const fs::path root =
      fs::temp_directory_path() / ("goheap-layering-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "low");
  fs::create_directories(root / "high");
  std::ofstream(root / "high" / "a.cpp") << "#include \"low/b.h\"\n#include \"high/c.h\"\n";
  std::ofstream(root / "low" / "b.h") << "#pragma once\n\n#include \"high/c.h\"\n";
  std::istringstream table_text("low:\nhigh: low\n");
  const std::vector<std::string> found = violations(root, parseTable(table_text));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("b.h:3: low may not include high"), std::string::npos) << found[0];

  fs::create_directories(root / "stray");
  std::istringstream again("low:\nhigh: low\n");
  const std::vector<std::string> with_stray = violations(root, parseTable(again));
  EXPECT_EQ(with_stray.size(), 2u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace goheap
