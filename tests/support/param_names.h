// Test names for parameterised suites: gtest allows only letters, digits and
// '_' ("go1.24/zoo" -> "go1_24_zoo", "go1.27-s390x" -> "go1_27_s390x").
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace goheap::testing {

inline std::string testName(std::string n) {
  for (char& c : n) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) c = '_';
  }
  return n;
}

// For suites parameterised by a path under the test dumps or a version.
inline std::string pathParamName(const ::testing::TestParamInfo<std::string>& p) {
  return testName(p.param);
}

}  // namespace goheap::testing
