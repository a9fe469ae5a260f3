#include "util/format.h"
#include "util/duration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace goheap {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(FormatBytes, SmallValuesAreWholeBytes) {
  EXPECT_EQ(formatBytes(0), "0 B");
  EXPECT_EQ(formatBytes(1), "1 B");
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1023), "1023 B");
}

TEST(FormatBytes, BinaryUnitsWithThreeSignificantDigits) {
  EXPECT_EQ(formatBytes(1024), "1 KiB");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(10 * 1024 + 512), "10.5 KiB");
  EXPECT_EQ(formatBytes(12897485), "12.3 MiB");
  EXPECT_EQ(formatBytes(1095216660), "1.02 GiB");
  EXPECT_EQ(formatBytes(uint64_t{5} << 40), "5 TiB");
}

TEST(FormatBytes, RoundingUpMovesToTheNextUnit) {
  EXPECT_EQ(formatBytes(1047961), "1023 KiB");  // 1023.4 KiB
  EXPECT_EQ(formatBytes(1048575), "1 MiB");     // 1023.999 KiB
  EXPECT_EQ(formatBytes(1048576), "1 MiB");
}

TEST(FormatBytes, LargestValueIsInExbibytes) {
  EXPECT_EQ(formatBytes(kMax), "16 EiB");
}

TEST(FormatCount, GroupsThousandsWithCommas) {
  EXPECT_EQ(formatCount(0), "0");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(1000), "1,000");
  EXPECT_EQ(formatCount(1023), "1,023");
  EXPECT_EQ(formatCount(123456), "123,456");
  EXPECT_EQ(formatCount(12345678), "12,345,678");
  EXPECT_EQ(formatCount(kMax), "18,446,744,073,709,551,615");
}

TEST(FormatHexBytes, TwoLowerCaseDigitsAByte) {
  EXPECT_EQ(formatHexBytes({}), "");
  const uint8_t bytes[] = {0x00, 0x0f, 0xde, 0xad, 0xff};
  EXPECT_EQ(formatHexBytes(bytes), "000fdeadff");
}

TEST(FormatHex, LowerCaseWithPrefixAndNoPadding) {
  EXPECT_EQ(formatHex(0), "0x0");
  EXPECT_EQ(formatHex(1024), "0x400");
  EXPECT_EQ(formatHex(0xc000012345), "0xc000012345");
  EXPECT_EQ(formatHex(kMax), "0xffffffffffffffff");
}

TEST(FormatDuration, PicksTheUnitThatGivesThreeDigits) {
  EXPECT_EQ(formatDuration(0.00085), "850 µs");
  EXPECT_EQ(formatDuration(0.012), "12 ms");
  EXPECT_EQ(formatDuration(0.0015), "1.5 ms");
  EXPECT_EQ(formatDuration(1.234), "1.23 s");
  EXPECT_EQ(formatDuration(45.6), "45.6 s");
}

TEST(FormatDuration, RoundingNeverShowsAThousand) {
  EXPECT_EQ(formatDuration(0.9996), "1 s");
  EXPECT_EQ(formatDuration(0.0009999), "1 ms");
}

TEST(FormatDuration, MinutesAndHours) {
  EXPECT_EQ(formatDuration(125), "2m05s");
  EXPECT_EQ(formatDuration(3725), "1h02m");
}

TEST(FormatDuration, NonsenseShowsAsZero) {
  EXPECT_EQ(formatDuration(0), "0 s");
  EXPECT_EQ(formatDuration(-1), "0 s");
  EXPECT_EQ(formatDuration(std::nan("")), "0 s");
}

TEST(FormatPercent, OneDecimal) {
  EXPECT_EQ(formatPercent(123, 1000), "12.3%");
  EXPECT_EQ(formatPercent(1, 1), "100.0%");
  EXPECT_EQ(formatPercent(1, 3), "33.3%");
  EXPECT_EQ(formatPercent(kMax, kMax), "100.0%");
  EXPECT_EQ(formatFraction(0.5), "50.0%");
}

TEST(FormatPercent, TinyButNonZeroIsNotShownAsZero) {
  EXPECT_EQ(formatPercent(1, 1000000), "<0.1%");
  EXPECT_EQ(formatPercent(0, 1000000), "0.0%");
}

TEST(FormatPercent, ZeroWholeIsZero) {
  EXPECT_EQ(formatPercent(5, 0), "0.0%");
}

TEST(ParseUint, AcceptsDigitsUpToTheMaximum) {
  EXPECT_EQ(*parseUint("0"), 0u);
  EXPECT_EQ(*parseUint("20"), 20u);
  EXPECT_EQ(*parseUint("18446744073709551615"), kMax);
}

TEST(ParseUint, RejectsWithAReason) {
  Expected<uint64_t> big = parseUint("18446744073709551616");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message(),
            "'18446744073709551616' is too large (the maximum is "
            "18446744073709551615)");
  EXPECT_EQ(parseUint("abc").error().message(), "'abc' is not a whole number");
  EXPECT_FALSE(parseUint("").ok());
  EXPECT_FALSE(parseUint("-1").ok());
  EXPECT_FALSE(parseUint("1.5").ok());
  EXPECT_FALSE(parseUint(" 1").ok());
  EXPECT_FALSE(parseUint("0x10").ok());
}

TEST(ParseAddress, HexWithPrefixOrDecimal) {
  EXPECT_EQ(*parseAddress("0xc000123456"), 0xc000123456u);
  EXPECT_EQ(*parseAddress("0XC000123456"), 0xc000123456u);
  EXPECT_EQ(*parseAddress("824634913878"), 824634913878u);
  EXPECT_EQ(*parseAddress("0x0"), 0u);
  EXPECT_EQ(*parseAddress("0xffffffffffffffff"), kMax);
  EXPECT_EQ(*parseAddress("0x00000000000000000001"), 1u);  // leading zeros do not overflow
}

TEST(ParseAddress, RejectsWithAReason) {
  EXPECT_EQ(parseAddress("0x").error().message(), "'0x' is not an address: no hex digits after 0x");
  EXPECT_EQ(parseAddress("0xg1").error().message(),
            "'0xg1' is not an address: expected hex digits after 0x");
  EXPECT_EQ(parseAddress("c000123456").error().message(),
            "'c000123456' is not an address: expected hex with a 0x prefix (like 0xc000123456) "
            "or a decimal number");
  EXPECT_EQ(parseAddress("0x10000000000000000").error().message(),
            "'0x10000000000000000' is too large for a 64-bit address");
  EXPECT_FALSE(parseAddress("99999999999999999999").ok());
  EXPECT_FALSE(parseAddress("").ok());
}

TEST(ParseByteSize, PlainNumbersAreBytes) {
  EXPECT_EQ(*parseByteSize("0"), 0u);
  EXPECT_EQ(*parseByteSize("1000"), 1000u);
  EXPECT_EQ(*parseByteSize("1000B"), 1000u);
  EXPECT_EQ(*parseByteSize("18446744073709551615"), kMax);
}

TEST(ParseByteSize, EveryUnitSpellingIsBinary) {
  EXPECT_EQ(*parseByteSize("64K"), 65536u);
  EXPECT_EQ(*parseByteSize("64KB"), 65536u);
  EXPECT_EQ(*parseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*parseByteSize("64kib"), 65536u);
  EXPECT_EQ(*parseByteSize("64 KiB"), 65536u);
  EXPECT_EQ(*parseByteSize("64Ki"), 65536u);  // as Kubernetes writes them
  EXPECT_EQ(*parseByteSize("2G"), uint64_t{2} << 30);
  EXPECT_EQ(*parseByteSize("3T"), uint64_t{3} << 40);
  EXPECT_EQ(*parseByteSize("1P"), uint64_t{1} << 50);
  EXPECT_EQ(*parseByteSize("15E"), uint64_t{15} << 60);
}

TEST(ParseByteSize, FractionsWithAUnit) {
  EXPECT_EQ(*parseByteSize("1.5MB"), 1572864u);
  EXPECT_EQ(*parseByteSize("0.5K"), 512u);
  EXPECT_EQ(*parseByteSize("1.0000000001K"), 1024u);
  EXPECT_EQ(*parseByteSize("15.5E"), (uint64_t{31} << 59));
}

TEST(ParseByteSize, RejectsWithAReason) {
  EXPECT_EQ(parseByteSize("1.5").error().message(),
            "'1.5' has a fraction of a byte; give a whole number or a unit (1.5K)");
  EXPECT_EQ(parseByteSize("64X").error().message(),
            "'64X' is not a size: expected a number with an optional unit, like 1000, 64K, 1.5MB "
            "or 2GiB");
  EXPECT_EQ(parseByteSize("16E").error().message(),
            "'16E' is too large (the maximum is 16 EiB - 1)");
  EXPECT_FALSE(parseByteSize("17179869184G").ok());
  EXPECT_FALSE(parseByteSize("15.9999999999999999999E").ok());
  EXPECT_FALSE(parseByteSize("").ok());
  EXPECT_FALSE(parseByteSize("K").ok());
  EXPECT_FALSE(parseByteSize("1.K").ok());
  EXPECT_FALSE(parseByteSize(".5K").ok());
  EXPECT_FALSE(parseByteSize("-1").ok());
  EXPECT_FALSE(parseByteSize("1.5B").ok());
  EXPECT_FALSE(parseByteSize("64KiBs").ok());
}

TEST(ParseDurationMs, NumbersWithAUnit) {
  EXPECT_EQ(*parseDurationMs("500ms"), 500u);
  EXPECT_EQ(*parseDurationMs("2s"), 2000u);
  EXPECT_EQ(*parseDurationMs("1.5s"), 1500u);
  EXPECT_EQ(*parseDurationMs("1m"), 60000u);
  EXPECT_EQ(*parseDurationMs("1.5m"), 90000u);
  EXPECT_EQ(*parseDurationMs("1h"), 3600000u);
  EXPECT_EQ(*parseDurationMs("2 S"), 2000u);
  EXPECT_EQ(*parseDurationMs("0s"), 0u);
}

TEST(ParseDurationMs, MistakesSayWhat) {
  EXPECT_EQ(parseDurationMs("2").error().message(), "'2' has no unit: add ms, s, m or h (2s, 1m)");
  EXPECT_FALSE(parseDurationMs("2d").ok());
  EXPECT_FALSE(parseDurationMs("s").ok());
  EXPECT_FALSE(parseDurationMs("1.2.3s").ok());
  EXPECT_FALSE(parseDurationMs(".5s").ok());
  EXPECT_FALSE(parseDurationMs("-1s").ok());
  EXPECT_FALSE(parseDurationMs("").ok());
  EXPECT_EQ(parseDurationMs("0.1ms").error().message(), "'0.1ms' is shorter than a millisecond");
  EXPECT_EQ(parseDurationMs("9000h").error().message(), "'9000h' is too long (at most a year)");
}

}  // namespace
}  // namespace goheap
