// Test names for suites parameterised by a path under the test dumps
// ("go1.24/zoo" -> "go1_24_zoo"): gtest allows only letters, digits and '_'.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace goheap::testing {

inline std::string pathParamName(const ::testing::TestParamInfo<std::string>& p) {
  std::string n = p.param;
  for (char& c : n) {
    if (c == '/' || c == '.') c = '_';
  }
  return n;
}

}  // namespace goheap::testing
