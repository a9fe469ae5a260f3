#include "cli/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace goheap::cli {
namespace {

// A command shaped like `goheap top`, with one flag of every sort.
CommandSpec topSpec() {
  CommandSpec spec("top",
                   "Lists the groups of objects that use the most memory, by type, by "
                   "allocation site or by shape, with their counts and shallow and retained "
                   "sizes.");
  spec.positional("DUMP", "heap dump written by runtime/debug.WriteHeapDump");
  spec.choice("by", {"type", "site", "shape"}, "type", "what to group objects by");
  spec.choice("sort", {"retained", "shallow", "count"}, "retained", "order of the rows");
  spec.flag("limit", "N", "rows to show; 0 shows all")
      .alias('n')
      .kind(ValueKind::Uint)
      .defaultValue("20");
  spec.flag("min-bytes", "SIZE", "hide groups that retain less")
      .kind(ValueKind::ByteSize)
      .defaultValue("0");
  spec.flag("type", "NAME", "only objects of this type").repeatable();
  spec.boolFlag("json", "print JSON instead of a table");
  spec.boolFlag("no-progress", "do not show progress on stderr");
  spec.example("goheap top heap.dump --by site --sort retained -n 20",
               "the 20 allocation sites that keep the most memory alive");
  spec.example("goheap top heap.dump --json", "the default report as JSON");
  return spec;
}

ParsedArgs parseOk(const CommandSpec& spec, std::vector<std::string> words) {
  Expected<ParsedArgs> r = spec.parse(words);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? r.take() : ParsedArgs();
}

std::string parseError(const CommandSpec& spec, std::vector<std::string> words) {
  Expected<ParsedArgs> r = spec.parse(words);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message();
}

TEST(Args, DefaultsWhenOnlyThePositionalIsGiven) {
  ParsedArgs a = parseOk(topSpec(), {"heap.dump"});
  EXPECT_FALSE(a.helpRequested());
  EXPECT_EQ(a.getString("DUMP"), "heap.dump");
  EXPECT_TRUE(a.has("DUMP"));
  EXPECT_EQ(a.getString("by"), "type");
  EXPECT_FALSE(a.has("by"));
  EXPECT_EQ(a.getUint("limit"), 20u);
  EXPECT_EQ(a.getUint("min-bytes"), 0u);
  EXPECT_FALSE(a.getBool("json"));
  EXPECT_TRUE(a.getStrings("type").empty());
}

TEST(Args, ValuesAsSeparateWordOrAfterEquals) {
  ParsedArgs a = parseOk(topSpec(), {"--by", "site", "heap.dump", "--sort=count", "--limit=5"});
  EXPECT_EQ(a.getString("by"), "site");
  EXPECT_EQ(a.getString("sort"), "count");
  EXPECT_EQ(a.getUint("limit"), 5u);
  EXPECT_TRUE(a.has("limit"));
  EXPECT_EQ(a.getString("DUMP"), "heap.dump");
}

TEST(Args, ShortAliasInAllItsForms) {
  EXPECT_EQ(parseOk(topSpec(), {"d", "-n", "7"}).getUint("limit"), 7u);
  EXPECT_EQ(parseOk(topSpec(), {"d", "-n7"}).getUint("limit"), 7u);
  EXPECT_EQ(parseOk(topSpec(), {"d", "-n=7"}).getUint("limit"), 7u);
}

TEST(Args, LastValueWinsForAFlagThatIsNotRepeatable) {
  EXPECT_EQ(parseOk(topSpec(), {"d", "-n", "7", "--limit", "9"}).getUint("limit"), 9u);
}

TEST(Args, RepeatableFlagCollectsEveryValue) {
  ParsedArgs a = parseOk(topSpec(), {"d", "--type", "[]byte", "--type=*http.conn"});
  ASSERT_EQ(a.getStrings("type").size(), 2u);
  EXPECT_EQ(a.getStrings("type")[0], "[]byte");
  EXPECT_EQ(a.getStrings("type")[1], "*http.conn");
}

TEST(Args, ByteSizeFlagsTakeUnits) {
  EXPECT_EQ(parseOk(topSpec(), {"d", "--min-bytes", "64K"}).getUint("min-bytes"), 65536u);
  EXPECT_EQ(parseOk(topSpec(), {"d", "--min-bytes=1.5MB"}).getUint("min-bytes"), 1572864u);
}

TEST(Args, BooleanFlags) {
  ParsedArgs a = parseOk(topSpec(), {"--json", "d"});
  EXPECT_TRUE(a.getBool("json"));
  EXPECT_FALSE(a.getBool("no-progress"));
}

TEST(Args, DoubleDashEndsFlags) {
  ParsedArgs a = parseOk(topSpec(), {"--json", "--", "-weird-name.dump"});
  EXPECT_EQ(a.getString("DUMP"), "-weird-name.dump");
}

TEST(Args, LoneDashIsAPositional) {
  EXPECT_EQ(parseOk(topSpec(), {"-"}).getString("DUMP"), "-");
}

TEST(Args, ArgvForm) {
  const char* argv[] = {"heap.dump", "-n", "3"};
  Expected<ParsedArgs> a = topSpec().parse(3, argv);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->getUint("limit"), 3u);
}

TEST(Args, HelpIsReportedNotAnError) {
  EXPECT_TRUE(parseOk(topSpec(), {"--help"}).helpRequested());
  EXPECT_TRUE(parseOk(topSpec(), {"heap.dump", "-h"}).helpRequested());
  // Help wins over mistakes elsewhere on the line.
  EXPECT_TRUE(parseOk(topSpec(), {"--bogus", "--help"}).helpRequested());
}

TEST(Args, HelpAfterDoubleDashIsAFileName) {
  ParsedArgs a = parseOk(topSpec(), {"--", "--help"});
  EXPECT_FALSE(a.helpRequested());
  EXPECT_EQ(a.getString("DUMP"), "--help");
}

TEST(Args, UnknownFlagSuggestsTheNearestOne) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--sortt", "count"}),
            "unknown flag --sortt (did you mean --sort?); see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "--limt=3"}),
            "unknown flag --limt (did you mean --limit?); see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "--min"}),
            "unknown flag --min (did you mean --min-bytes?); see 'goheap top --help'");
}

TEST(Args, SingleDashLongFlagSuggestsTheDoubleDash) {
  EXPECT_EQ(parseError(topSpec(), {"d", "-json"}),
            "unknown flag -json (did you mean --json?); see 'goheap top --help'");
}

TEST(Args, UnknownFlagWithNothingNear) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--frobnicate"}),
            "unknown flag --frobnicate; see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "-x"}), "unknown flag -x; see 'goheap top --help'");
}

TEST(Args, MissingValue) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--limit"}),
            "flag --limit needs a value (N); see 'goheap top --help'");
  // The next flag is not taken as the value.
  EXPECT_EQ(parseError(topSpec(), {"d", "-n", "--json"}),
            "flag -n needs a value (N); see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "--by"}),
            "flag --by needs a value: one of type, site, shape; see 'goheap top --help'");
}

TEST(Args, BadChoiceListsTheAllowedOnes) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--by", "sites"}),
            "invalid value 'sites' for --by: expected one of type, site, shape (did you mean "
            "site?); see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "--by=package"}),
            "invalid value 'package' for --by: expected one of type, site, shape; see 'goheap "
            "top --help'");
}

TEST(Args, BadNumberSaysWhy) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--limit", "ten"}),
            "invalid value for --limit: 'ten' is not a whole number; see 'goheap top --help'");
  EXPECT_EQ(parseError(topSpec(), {"d", "--min-bytes", "lots"}),
            "invalid value for --min-bytes: 'lots' is not a size: expected a number with an "
            "optional unit, like 1000, 64K, 1.5MB or 2GiB; see 'goheap top --help'");
}

TEST(Args, BooleanFlagRefusesAValue) {
  EXPECT_EQ(parseError(topSpec(), {"d", "--json=yes"}),
            "flag --json does not take a value; see 'goheap top --help'");
}

TEST(Args, MissingPositional) {
  EXPECT_EQ(parseError(topSpec(), {"--json"}),
            "missing DUMP (heap dump written by runtime/debug.WriteHeapDump); see 'goheap top "
            "--help'");
}

TEST(Args, TooManyPositionals) {
  EXPECT_EQ(parseError(topSpec(), {"a.dump", "b.dump"}),
            "unexpected argument 'b.dump': 'goheap top' takes DUMP; see 'goheap top --help'");
  CommandSpec none("version", "Prints the version.");
  EXPECT_EQ(parseError(none, {"x"}),
            "unexpected argument 'x': 'goheap version' takes no arguments; see 'goheap version "
            "--help'");
}

CommandSpec pathsSpec() {
  CommandSpec spec("paths", "Shows why objects are alive: their paths from the roots.");
  spec.positional("DUMP", "heap dump");
  spec.positional("ADDR", "object address").kind(ValueKind::Address).repeated();
  spec.flag("max", "N", "paths per object").kind(ValueKind::Uint).defaultValue("3");
  return spec;
}

TEST(Args, RepeatedAddressPositionals) {
  ParsedArgs a = parseOk(pathsSpec(), {"d", "0xc000123456", "42"});
  ASSERT_EQ(a.getUints("ADDR").size(), 2u);
  EXPECT_EQ(a.getUints("ADDR")[0], 0xc000123456u);
  EXPECT_EQ(a.getUints("ADDR")[1], 42u);
  EXPECT_EQ(a.getUint("ADDR"), 42u);
  EXPECT_EQ(a.getStrings("ADDR")[0], "0xc000123456");
}

TEST(Args, BadPositionalSaysWhich) {
  EXPECT_EQ(parseError(pathsSpec(), {"d", "c000123456"}),
            "invalid ADDR: 'c000123456' is not an address: expected hex with a 0x prefix (like "
            "0xc000123456) or a decimal number; see 'goheap paths --help'");
}

TEST(Args, OptionalPositionalMayBeAbsent) {
  CommandSpec spec("summary", "One screen about the dump.");
  spec.positional("DUMP", "heap dump");
  spec.positional("EXE", "the program's executable").optional();
  ParsedArgs a = parseOk(spec, {"d"});
  EXPECT_FALSE(a.has("EXE"));
  EXPECT_EQ(a.getString("EXE"), "");
  EXPECT_EQ(parseOk(spec, {"d", "prog"}).getString("EXE"), "prog");
}

TEST(Args, OptionalPositionalGivesWayToAnAddress) {
  CommandSpec spec("obj", "");
  spec.positional("DUMP", "heap dump");
  spec.positional("EXE", "the program's executable").optional();
  spec.positional("ADDR", "address").kind(ValueKind::Address);
  ASSERT_TRUE(spec.validate().ok());
  ParsedArgs without = parseOk(spec, {"d", "0xc000010000"});
  EXPECT_FALSE(without.has("EXE"));
  EXPECT_EQ(without.getUint("ADDR"), 0xc000010000u);
  ParsedArgs with = parseOk(spec, {"d", "./server", "0xc000010000"});
  EXPECT_EQ(with.getString("EXE"), "./server");
  EXPECT_EQ(with.getUint("ADDR"), 0xc000010000u);
  EXPECT_NE(parseError(spec, {"d", "./server"}).find("missing ADDR"), std::string::npos);

  CommandSpec ambiguous("x", "");
  ambiguous.positional("A", "").optional();
  ambiguous.positional("B", "");
  EXPECT_FALSE(ambiguous.validate().ok());
}

TEST(Args, UsageErrorForCommandChecks) {
  ParsedArgs a = parseOk(topSpec(), {"d"});
  EXPECT_EQ(a.usageError("--json and --csv cannot be combined").message(),
            "--json and --csv cannot be combined; see 'goheap top --help'");
  EXPECT_EQ(topSpec().usageError("x").message(), "x; see 'goheap top --help'");
}

TEST(ArgsSpec, ValidSpecsPass) {
  EXPECT_TRUE(topSpec().validate().ok());
  EXPECT_TRUE(pathsSpec().validate().ok());
}

TEST(ArgsSpec, DuplicateNamesAndAliasesAreCaught) {
  CommandSpec dup("x", "");
  dup.boolFlag("json", "a");
  dup.boolFlag("json", "b");
  EXPECT_FALSE(dup.validate().ok());

  CommandSpec help("x", "");
  help.boolFlag("help", "mine");
  EXPECT_FALSE(help.validate().ok());

  CommandSpec alias("x", "");
  alias.boolFlag("hex", "").alias('h');
  EXPECT_EQ(alias.validate().error().message(), "alias -h of --hex is already taken");
}

TEST(ArgsSpec, InvalidDefaultsAreCaughtAndParseReportsThem) {
  CommandSpec bad("x", "");
  bad.flag("limit", "N", "").kind(ValueKind::Uint).defaultValue("many");
  EXPECT_FALSE(bad.validate().ok());
  Expected<ParsedArgs> r = bad.parse(std::vector<std::string>{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("internal error"), std::string::npos);

  CommandSpec choice("x", "");
  choice.choice("by", {"a", "b"}, "c", "");
  EXPECT_FALSE(choice.validate().ok());
}

TEST(ArgsSpec, OnlyTheLastPositionalMayRepeat) {
  CommandSpec spec("x", "");
  spec.positional("A", "").repeated();
  spec.positional("B", "");
  EXPECT_FALSE(spec.validate().ok());
}

TEST(ArgsHelp, StartsWithUsageAndDescription) {
  std::string h = topSpec().help();
  EXPECT_EQ(h.rfind("usage: goheap top DUMP [flags]\n\nLists the groups of objects", 0), 0u) << h;
  // Rewrapped at 80 columns.
  size_t start = 0;
  while (start < h.size()) {
    size_t end = h.find('\n', start);
    EXPECT_LE(end - start, 80u) << h.substr(start, end - start);
    start = end + 1;
  }
}

TEST(ArgsHelp, ListsFlagsWithDefaultsAligned) {
  std::string h = topSpec().help();
  EXPECT_NE(h.find("arguments:\n  DUMP   heap dump written by runtime/debug.WriteHeapDump\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("      --by type|site|shape   what to group objects by (default: type)\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("  -n, --limit N              rows to show; 0 shows all (default: 20)\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("      --type NAME            only objects of this type (repeatable)\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("  -h, --help                 show this help and exit\n"), std::string::npos)
      << h;
}

TEST(ArgsHelp, SaysThatSizeUnitsAreBinary) {
  std::string h = topSpec().help();
  EXPECT_NE(h.find("all units are binary: 1K = 1KB = 1KiB = 1024 bytes"), std::string::npos) << h;
  EXPECT_EQ(pathsSpec().help().find("binary"), std::string::npos);
}

TEST(ArgsHelp, ExamplesWithExplanations) {
  std::string h = topSpec().help();
  EXPECT_NE(h.find("examples:\n"
                   "  goheap top heap.dump --by site --sort retained -n 20\n"
                   "      the 20 allocation sites that keep the most memory alive\n"
                   "\n"
                   "  goheap top heap.dump --json\n"
                   "      the default report as JSON\n"),
            std::string::npos)
      << h;
}

TEST(ArgsHelp, UsageShowsOptionalAndRepeatedPositionals) {
  EXPECT_EQ(pathsSpec().help().rfind("usage: goheap paths DUMP ADDR... [flags]\n", 0), 0u);
  CommandSpec spec("summary", "");
  spec.positional("DUMP", "");
  spec.positional("EXE", "").optional();
  EXPECT_EQ(spec.help().rfind("usage: goheap summary DUMP [EXE] [flags]\n", 0), 0u);
}

TEST(ClosestMatch, TyposPrefixesAndNothing) {
  std::vector<std::string> commands = {"summary", "top", "dom", "paths", "obj", "goroutines"};
  EXPECT_EQ(closestMatch("sumary", commands), "summary");
  EXPECT_EQ(closestMatch("tpo", commands), "top");  // swapped neighbours
  EXPECT_EQ(closestMatch("gorout", commands), "goroutines");
  EXPECT_EQ(closestMatch("xyzzy", commands), std::nullopt);
  EXPECT_EQ(closestMatch("", commands), std::nullopt);
}

}  // namespace
}  // namespace goheap::cli
