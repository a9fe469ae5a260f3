// The files under web/, compiled into the binary by scripts/embed-web.py (a
// build step in CMakeLists.txt), so `goheap serve` is one self-contained file.
#pragma once

#include <span>
#include <string_view>

namespace goheap::web {

struct WebAsset {
  std::string_view path;          // "/index.html": the file's path under web/
  std::string_view content_type;  // from its extension
  std::span<const unsigned char> bytes;
};

// Every embedded file, sorted by path.
std::span<const WebAsset> webAssets();

}  // namespace goheap::web
