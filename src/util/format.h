// Numbers for people: byte sizes, counts, addresses, durations and shares as
// the tables show them, and the parsers for what people type on the command
// line (addresses, sizes, counts). JSON output never uses the formatters; it
// carries the raw numbers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/error.h"

namespace goheap {

// Binary units with three significant digits and trailing zeros dropped:
// "0 B", "512 B", "1023 B", "1 KiB", "1.5 KiB", "12.3 MiB", "1.02 GiB", "16 EiB".
std::string formatBytes(uint64_t bytes);

// Thousands separated by commas: "0", "999", "1,000", "12,345,678".
std::string formatCount(uint64_t n);

// Lower-case hex with a 0x prefix and no padding: "0x0", "0xc000012345".
std::string formatHex(uint64_t value);

// Bytes as lower-case hex, two digits each and nothing between:
// {0xde, 0xad} -> "dead".
std::string formatHexBytes(std::span<const uint8_t> bytes);

// A half-open address range: "[0x401000, 0x4a2000)".
std::string formatHexRange(uint64_t begin, uint64_t end);

// An array element, "[3]", and a byte offset, "+24", as paths show them.
std::string formatIndex(uint64_t index);
std::string formatOffset(uint64_t offset);

// Wall-clock time with three significant digits: "850 µs", "12 ms", "1.23 s",
// "45.6 s"; a minute or more as "2m05s", an hour or more as "1h02m".
// Zero, negative or NaN input (a clock that went wrong) shows as "0 s".
std::string formatDuration(double seconds);

// part/whole with one decimal: "12.3%", "100.0%". A non-zero part that would
// round to 0.0% shows as "<0.1%" so that it does not look like nothing; a zero
// whole shows as "0.0%".
std::string formatPercent(uint64_t part, uint64_t whole);

// The same for a fraction already computed (0.123 -> "12.3%").
std::string formatFraction(double fraction);

// A decimal count: digits only, no sign, no separators; fails on overflow.
Expected<uint64_t> parseUint(std::string_view text);

// An address as printed by Go and by goheap: hex with a 0x (or 0X) prefix, or
// decimal without one ("0xc000123456", "824634913878").
Expected<uint64_t> parseAddress(std::string_view text);

// A size with an optional unit: "1000", "64K", "64KB", "64KiB", "64Ki",
// "64 kib", "1.5MB", "2G". Every unit is binary whatever its spelling (K = KB = KiB =
// 1024, M = 1024 K, ... up to E); help texts must say so. A fraction needs a
// unit and is rounded to the nearest byte.
Expected<uint64_t> parseByteSize(std::string_view text);

// The sentence help texts show next to size flags.
inline constexpr std::string_view kByteSizeUnitsHelp =
    "sizes may end in a unit K, M, G, T, P or E, optionally followed by B or iB "
    "(64K, 1.5MB, 2GiB); all units are binary: 1K = 1KB = 1KiB = 1024 bytes";

}  // namespace goheap
