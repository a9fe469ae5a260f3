// Every path to a file of the repository that src/ and docs/ name exists:
// a comment saying "see graph/heap.h" or a page citing src/cli/render.cpp
// goes stale silently when the file moves. Paths are read as words made of
// letters, digits and "_./-", starting with a folder of the repository
// (src/, tests/, scripts/, docs/ ...) or, for a .h or .cpp, with one of
// src/'s stage folders (graph/heap.h means src/graph/heap.h).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace goheap {
namespace {

namespace fs = std::filesystem;

bool isPathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
         c == '-';
}

// Folders at the repository's root that documents and comments cite.
const std::set<std::string, std::less<>> kRootFolders = {
    "src", "tests", "scripts", "docs", "cmake", "bench", "fuzz", "packaging", "examples", ".ci"};

// Extensions of the files worth checking: a word like "e.g." or "1.24" is
// not a path.
const std::set<std::string, std::less<>> kExtensions = {
    ".h", ".cpp", ".md", ".sh", ".py", ".cmake", ".go", ".txt", ".json", ".js", ".html", ".css"};

// A placeholder rather than a file: "tests/programs/NAME/main.go",
// "src/*/x.cpp", "go1.2N".
bool isPlaceholder(std::string_view path) {
  if (path.find('*') != std::string_view::npos) return true;
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find_first_of("/.", start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    bool upper = part.size() >= 2;
    for (char c : part) upper = upper && (std::isupper(static_cast<unsigned char>(c)) || c == '_');
    if (upper) return true;
    start = end + 1;
  }
  return false;
}

// The repository paths `text` names, each as the path from the root.
std::vector<std::string> namedPaths(std::string_view text, const std::set<std::string>& stages) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (!isPathChar(text[i]) || (i > 0 && isPathChar(text[i - 1]))) {
      i++;
      continue;
    }
    size_t end = i;
    while (end < text.size() && isPathChar(text[end])) end++;
    std::string word(text.substr(i, end - i));
    i = end;
    while (!word.empty() && (word.back() == '.' || word.back() == '-' || word.back() == '/')) {
      word.pop_back();
    }
    const size_t slash = word.find('/');
    const size_t dot = word.rfind('.');
    if (slash == std::string::npos || dot == std::string::npos || dot < word.rfind('/')) continue;
    if (!kExtensions.contains(std::string_view(word).substr(dot))) continue;
    if (isPlaceholder(word)) continue;
    const std::string folder = word.substr(0, slash);
    if (kRootFolders.contains(folder)) {
      out.push_back(word);
    } else if (stages.contains(folder) && (word.ends_with(".h") || word.ends_with(".cpp"))) {
      out.push_back("src/" + word);
    }
  }
  return out;
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PathReferences, WordsThatArePathsAreFound) {
  const std::set<std::string> stages = {"graph", "cli"};
  EXPECT_EQ(namedPaths("see graph/heap.h, and src/cli/render.cpp.", stages),
            (std::vector<std::string>{"src/graph/heap.h", "src/cli/render.cpp"}));
  // Not under src/: a test's folder of the same name, a placeholder, a
  // version, a URL's path.
  EXPECT_EQ(namedPaths("tests/cli/watch_test.cpp", stages),
            (std::vector<std::string>{"tests/cli/watch_test.cpp"}));
  EXPECT_TRUE(namedPaths("tests/programs/NAME/main.go go1.24 src/*/x.cpp", stages).empty());
  EXPECT_TRUE(namedPaths("https://example.com/graph/heap.h", stages).empty());
  EXPECT_TRUE(namedPaths("heap/graph.cpp e.g. graph/", stages).empty());
}

TEST(PathReferences, EveryPathNamedInSrcAndDocsExists) {
  const fs::path root = GOHEAP_SOURCE_DIR;
  std::set<std::string> stages;
  for (const auto& entry : fs::directory_iterator(root / "src")) {
    if (entry.is_directory()) stages.insert(entry.path().filename().string());
  }
  ASSERT_TRUE(stages.contains("graph"));
  size_t checked = 0;
  for (const char* folder : {"src", "docs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cpp" && ext != ".md") continue;
      for (const std::string& path : namedPaths(readAll(entry.path()), stages)) {
        checked++;
        EXPECT_TRUE(fs::exists(root / path)) << fs::relative(entry.path(), root).string()
                                             << " names " << path << ", which does not exist";
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace goheap
