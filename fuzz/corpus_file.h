// Writing a seed input, for the corpus makers (make_corpus, make_core_corpus,
// make_core_model_corpus).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace goheap::fuzz {

// Writes `bytes` to `path`, replacing it; false when that fails.
inline bool writeCorpusFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace goheap::fuzz
