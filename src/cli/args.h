// Declarative arguments for one subcommand: a command declares its
// positionals, flags, examples and description once, and gets from that both
// the parser and its --help text, so the two cannot disagree.
//
//   CommandSpec spec("top", "Lists the groups of objects that use the most memory.");
//   spec.positional("HEAP", "heap dump written by runtime/debug.WriteHeapDump");
//   spec.choice("by", {"type", "site"}, "type", "what to group objects by");
//   spec.flag("limit", "N", "rows to show").alias('n').kind(ValueKind::Uint).defaultValue("20");
//   spec.boolFlag("json", "print JSON instead of a table");
//   spec.example("goheap top heap.dump -n 5", "the five types that use the most memory");
//   Expected<ParsedArgs> args = spec.parse(argc - 2, argv + 2);
//
// Values must be valid for their kind before the command sees them: numbers,
// sizes, addresses and choices are checked by parse(), and every error says
// what was wrong and ends with "see 'goheap top --help'".
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace goheap::cli {

// What a value must look like; parse() checks it, so a command reads numbers
// without handling errors of its own.
enum class ValueKind : uint8_t {
  String,
  Uint,      // decimal count (parseUint)
  ByteSize,  // "64K", "1.5MB" (parseByteSize); help mentions the binary units
  Address,   // "0xc000123456" or decimal (parseAddress)
  Duration,  // "500ms", "2s", "1m", "1h" (parseDurationMs): getUint gives milliseconds
};

class FlagSpec {
 public:
  // A one-letter alias: -n 20, -n20.
  FlagSpec& alias(char letter) {
    alias_ = letter;
    return *this;
  }
  // Shown in help and used when the flag is absent. Checked against the kind
  // or the choices by parse() (an invalid default is a bug in the command).
  FlagSpec& defaultValue(std::string text) {
    default_ = std::move(text);
    return *this;
  }
  FlagSpec& kind(ValueKind k) {
    kind_ = k;
    return *this;
  }
  // May be given more than once; ParsedArgs::getStrings() has them all. A
  // flag that is not repeatable keeps its last value.
  FlagSpec& repeatable() {
    repeatable_ = true;
    return *this;
  }

 private:
  friend class CommandSpec;
  std::string name_;     // without the dashes
  std::string metavar_;  // "N", "SIZE"; empty for a boolean flag
  std::string help_;
  std::optional<std::string> default_;
  std::vector<std::string> choices_;
  ValueKind kind_ = ValueKind::String;
  char alias_ = 0;
  bool boolean_ = false;
  bool repeatable_ = false;
};

class PositionalSpec {
 public:
  PositionalSpec& optional() {
    required_ = false;
    return *this;
  }
  // Takes every remaining argument; only the last positional may.
  PositionalSpec& repeated() {
    repeated_ = true;
    return *this;
  }
  PositionalSpec& kind(ValueKind k) {
    kind_ = k;
    return *this;
  }

 private:
  friend class CommandSpec;
  std::string name_;  // "HEAP", "ADDR"
  std::string help_;
  ValueKind kind_ = ValueKind::String;
  bool required_ = true;
  bool repeated_ = false;
};

// The outcome of a successful parse: every declared name has its value, either
// from the command line or its default.
class ParsedArgs {
 public:
  // --help or -h was given: print CommandSpec::help() and exit 0. Nothing
  // else was checked, so the getters only see defaults.
  bool helpRequested() const { return help_; }

  // The flag or positional was given on the command line.
  bool has(std::string_view name) const;
  // The last value given, else the default, else "".
  std::string_view getString(std::string_view name) const;
  // The same, as the number its kind (Uint, ByteSize or Address) denotes,
  // a Duration in milliseconds; 0 when neither given nor defaulted.
  uint64_t getUint(std::string_view name) const;
  // A boolean flag: whether it was given.
  bool getBool(std::string_view name) const;
  // Every value of a repeatable flag or repeated positional, in order; the
  // default alone when none was given.
  std::span<const std::string> getStrings(std::string_view name) const;
  std::span<const uint64_t> getUints(std::string_view name) const;

  // An error about a combination of arguments only the command can judge,
  // worded like the parser's own: "PROBLEM; see 'goheap top --help'".
  Error usageError(std::string_view problem) const;
  const std::string& command() const { return command_; }

 private:
  friend class CommandSpec;
  struct Entry {
    std::string name;
    bool given = false;
    std::vector<std::string> values;
    std::vector<uint64_t> numbers;  // values parsed, for numeric kinds
  };
  const Entry* find(std::string_view name) const;

  std::string command_;
  std::vector<Entry> entries_;
  bool help_ = false;
};

class CommandSpec {
 public:
  // `command` as typed after "goheap"; `description` is the paragraph under
  // the usage line (blank lines separate paragraphs; lines are rewrapped).
  CommandSpec(std::string command, std::string description);

  PositionalSpec& positional(std::string name, std::string help);
  // A flag with a value: --name VALUE or --name=VALUE. `metavar` names the
  // value in help ("N", "SIZE", "ADDR").
  FlagSpec& flag(std::string name, std::string metavar, std::string help);
  // A byte size, --name SIZE (64K, 1.5MB, 2GiB: the units are explained
  // once, under the flags), with its default when not "".
  FlagSpec& sizeFlag(std::string name, std::string help, std::string default_value = "");
  // A count or a number of seconds, --name N, with its default when not "".
  FlagSpec& uintFlag(std::string name, std::string metavar, std::string help,
                     std::string default_value = "");
  // A switch without a value: --json.
  FlagSpec& boolFlag(std::string name, std::string help);
  // A flag whose value is one of `choices`, shown as --by type|site|shape.
  FlagSpec& choice(std::string name, std::vector<std::string> choices, std::string default_value,
                   std::string help);
  // A command line for the examples section and what it shows, in one line.
  CommandSpec& example(std::string command_line, std::string explanation);

  // `args` are the words after the subcommand name.
  Expected<ParsedArgs> parse(std::span<const std::string> args) const;
  Expected<ParsedArgs> parse(int count, const char* const* args) const;

  // usage line, description, arguments, flags with defaults, and examples;
  // lines fit in 80 columns where the words allow.
  std::string help() const;
  const std::string& command() const { return command_; }

  // "PROBLEM; see 'goheap CMD --help'".
  Error usageError(std::string_view problem) const;

  // A mistake in the declaration itself (duplicate names or aliases, a
  // repeated positional that is not last, an invalid default); parse() checks
  // this first and reports it as an internal error. Tests call it for every
  // command.
  Status validate() const;

 private:
  const FlagSpec* findLong(std::string_view name) const;
  const FlagSpec* findShort(char letter) const;
  Error unknownFlag(std::string_view arg, std::string_view name) const;
  // "HEAP [ADDR...]": the positionals as the usage line shows them.
  std::string usageLine() const;

  std::string command_;
  std::string description_;
  // Deques so that the references handed out by positional()/flag() stay
  // valid while later ones are declared.
  std::deque<PositionalSpec> positionals_;
  std::deque<FlagSpec> flags_;
  std::vector<std::pair<std::string, std::string>> examples_;
};

// The candidate nearest to `given` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours), if it is near enough to be a likely
// typo, or one that `given` is a prefix of. Used for "did you mean --sort?",
// and by the dispatcher for mistyped command names.
std::optional<std::string> closestMatch(std::string_view given,
                                        std::span<const std::string> candidates);

}  // namespace goheap::cli
