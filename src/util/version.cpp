#include "util/version.h"

namespace goheap {

std::string goheapFullVersion() {
  std::string version(goheapVersion());
  const std::string_view commit = goheapCommit();
  if (!commit.empty()) version.append("+g").append(commit);
  return version;
}

}  // namespace goheap
