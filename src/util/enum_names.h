#pragma once
// Names of an enum's values, kept as a table instead of one switch per enum.
#include <array>
#include <cstddef>
#include <string_view>

namespace goheap {

// The name of `value` in `names`, which lists the name of every enumerator in
// declaration order (the enum counting from 0); `fallback` for a value past
// the table, as a corrupt input cast into the enum can be.
template <typename Enum, size_t N>
constexpr std::string_view enumName(Enum value, const std::array<std::string_view, N>& names,
                                    std::string_view fallback) {
  const auto index = static_cast<size_t>(value);
  return index < N ? names[index] : fallback;
}

// Checks, where a table is defined, that it names every enumerator up to
// `last`, so that adding an enumerator without a name fails to compile.
template <typename Enum, size_t N>
constexpr bool namesEveryValue(const std::array<std::string_view, N>& /*names*/, Enum last) {
  return static_cast<size_t>(last) + 1 == N;
}

}  // namespace goheap
