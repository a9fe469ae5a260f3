#include "util/format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

namespace goheap {
namespace {

// Three significant digits for 1 <= v < 1000 (and a little beyond, where
// rounding carries), trailing zeros and a bare point dropped: a table column
// of sizes then reads "1.5 KiB" rather than "1.50 KiB".
std::string threeDigits(double v) {
  int decimals = v < 10 ? 2 : (v < 100 ? 1 : 0);
  std::array<char, 64> buf{};
  int n = std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
  std::string s(buf.data(), n > 0 ? static_cast<size_t>(n) : 0);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

std::string quoted(std::string_view text) {
  std::string s = "'";
  s += text;
  s += "'";
  return s;
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Digits only; `ok` is false on an empty string, a non-digit or overflow, and
// `overflow` tells the last one apart so the message can say "too large".
struct DecimalResult {
  uint64_t value = 0;
  bool ok = false;
  bool overflow = false;
};

DecimalResult parseDecimal(std::string_view text) {
  DecimalResult r;
  if (text.empty()) return r;
  uint64_t v = 0;
  for (char c : text) {
    if (!isDigit(c)) return r;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      r.overflow = true;
      return r;
    }
    v = v * 10 + d;
  }
  r.value = v;
  r.ok = true;
  return r;
}

}  // namespace

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr std::array<std::string_view, 6> kUnits = {"KiB", "MiB", "GiB",
                                                             "TiB", "PiB", "EiB"};
  size_t unit = 0;
  double v = static_cast<double>(bytes) / 1024.0;
  while (v >= 1024.0 && unit + 1 < kUnits.size()) {
    v /= 1024.0;
    ++unit;
  }
  // 1023.7 KiB would print as "1024 KiB"; show the next unit instead.
  if (v >= 1023.5 && unit + 1 < kUnits.size()) {
    v /= 1024.0;
    ++unit;
  }
  std::string s = threeDigits(v);
  s += ' ';
  s += kUnits[unit];
  return s;
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string s;
  s.reserve(digits.size() + digits.size() / 3);
  size_t lead = digits.size() % 3;
  if (lead == 0) lead = 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i >= lead && (i - lead) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string formatHexBytes(std::span<const uint8_t> bytes) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string formatHex(uint64_t value) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  std::array<char, 16> buf{};
  size_t n = 0;
  do {
    buf[n++] = kDigits[value & 0xf];
    value >>= 4;
  } while (value != 0);
  std::string s = "0x";
  while (n > 0) s += buf[--n];
  return s;
}

// These append piece by piece: GCC 12 at -O3 takes `"[" + std::string` (an
// insert at the front of a temporary) for an overlapping memcpy
// (-Wrestrict, GCC bug 105329).
std::string formatHexRange(uint64_t begin, uint64_t end) {
  std::string s = "[";
  s += formatHex(begin);
  s += ", ";
  s += formatHex(end);
  s += ')';
  return s;
}

std::string formatIndex(uint64_t index) {
  std::string s = "[";
  s += std::to_string(index);
  s += ']';
  return s;
}

std::string formatOffset(uint64_t offset) {
  std::string s = "+";
  s += std::to_string(offset);
  return s;
}

std::string formatDuration(double seconds) {
  if (!(seconds > 0)) return "0 s";
  // Each unit hands over to the next where its three digits would round up
  // to 1000, so "1000 ms" never appears.
  if (seconds < 999.5e-6) return threeDigits(seconds * 1e6) + " µs";
  if (seconds < 999.5e-3) return threeDigits(seconds * 1e3) + " ms";
  if (seconds < 59.5) return threeDigits(seconds) + " s";
  std::array<char, 64> buf{};
  double rounded = std::round(seconds);
  if (rounded < 3600) {
    auto total = static_cast<uint64_t>(rounded);
    std::snprintf(buf.data(), buf.size(), "%um%02us", static_cast<unsigned>(total / 60),
                  static_cast<unsigned>(total % 60));
    return buf.data();
  }
  // Beyond an hour the seconds are noise; hours are unbounded in principle,
  // so print them as a 64-bit number.
  double capped = std::min(rounded, 1e18);
  auto total = static_cast<uint64_t>(capped);
  std::snprintf(buf.data(), buf.size(), "%lluh%02um", static_cast<unsigned long long>(total / 3600),
                static_cast<unsigned>((total % 3600) / 60));
  return buf.data();
}

std::string formatFraction(double fraction) {
  if (!(fraction > 0)) {
    // NaN and negatives come only from a bad caller; show them as nothing.
    return "0.0%";
  }
  double pct = fraction * 100.0;
  if (pct < 0.05) return "<0.1%";
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.1f%%", pct);
  return buf.data();
}

std::string formatPercent(uint64_t part, uint64_t whole) {
  if (whole == 0 || part == 0) return "0.0%";
  return formatFraction(static_cast<double>(part) / static_cast<double>(whole));
}

Expected<uint64_t> parseUint(std::string_view text) {
  if (text.empty()) return Error("expected a whole number, got an empty string");
  DecimalResult r = parseDecimal(text);
  if (r.overflow)
    return Error(quoted(text) + " is too large (the maximum is 18446744073709551615)");
  if (!r.ok) return Error(quoted(text) + " is not a whole number");
  return r.value;
}

Expected<uint64_t> parseAddress(std::string_view text) {
  if (text.empty()) return Error("expected an address, got an empty string");
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::string_view hex = text.substr(2);
    if (hex.empty()) return Error(quoted(text) + " is not an address: no hex digits after 0x");
    uint64_t v = 0;
    for (char c : hex) {
      int d = hexDigit(c);
      if (d < 0) return Error(quoted(text) + " is not an address: expected hex digits after 0x");
      if (v >> 60 != 0) return Error(quoted(text) + " is too large for a 64-bit address");
      v = (v << 4) | static_cast<uint64_t>(d);
    }
    return v;
  }
  DecimalResult r = parseDecimal(text);
  if (r.overflow) return Error(quoted(text) + " is too large for a 64-bit address");
  if (!r.ok) {
    return Error(quoted(text) +
                 " is not an address: expected hex with a 0x prefix (like 0xc000123456) or a "
                 "decimal number");
  }
  return r.value;
}

Expected<uint64_t> parseByteSize(std::string_view text) {
  auto invalid = [&] {
    return Error(quoted(text) +
                 " is not a size: expected a number with an optional unit, like 1000, 64K, "
                 "1.5MB or 2GiB");
  };
  auto tooLarge = [&] { return Error(quoted(text) + " is too large (the maximum is 16 EiB - 1)"); };

  size_t i = 0;
  while (i < text.size() && isDigit(text[i])) ++i;
  std::string_view whole = text.substr(0, i);
  if (whole.empty()) return invalid();
  std::string_view fraction;
  if (i < text.size() && text[i] == '.') {
    size_t start = ++i;
    while (i < text.size() && isDigit(text[i])) ++i;
    fraction = text.substr(start, i - start);
    if (fraction.empty()) return invalid();
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  for (char c : text.substr(i)) unit += lower(c);

  unsigned shift = 0;
  if (!unit.empty() && unit != "b") {
    static constexpr std::string_view kPrefixes = "kmgtpe";
    size_t p = kPrefixes.find(unit[0]);
    std::string_view rest = std::string_view(unit).substr(1);
    if (p == std::string_view::npos ||
        !(rest.empty() || rest == "b" || rest == "i" || rest == "ib")) {
      return invalid();
    }
    shift = 10 * static_cast<unsigned>(p + 1);
  }

  DecimalResult w = parseDecimal(whole);
  if (w.overflow) return tooLarge();
  if (!w.ok) return invalid();
  if (shift > 0 && w.value > (std::numeric_limits<uint64_t>::max() >> shift)) return tooLarge();
  uint64_t value = w.value << shift;

  if (!fraction.empty()) {
    if (shift == 0) {
      return Error(quoted(text) +
                   " has a fraction of a byte; give a whole number or a unit (1.5K)");
    }
    // Nineteen digits are more than a double holds; later ones cannot move
    // the result by a byte.
    double f = 0;
    double scale = 1;
    for (size_t k = 0; k < fraction.size() && k < 19; ++k) {
      scale /= 10;
      f += (fraction[k] - '0') * scale;
    }
    auto extra = static_cast<uint64_t>(std::round(f * std::ldexp(1.0, static_cast<int>(shift))));
    if (extra > std::numeric_limits<uint64_t>::max() - value) return tooLarge();
    value += extra;
  }
  return value;
}

}  // namespace goheap
