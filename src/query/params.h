// The parameters of the questions goheap answers, declared once for both front
// ends. Each query lists its parameters as ParamSpecs; `goheap CMD` turns
// them into command-line flags (--min-bytes), `goheap serve` into URL
// parameters (min_bytes=), and both hand the values given to the query's
// read function (questions/typed_questions.h), which checks them with the same parsers and
// rules. A rule, and the message a mistake gets, is so written once.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace goheap::query {

// How a value is written.
enum class ParamKind : uint8_t {
  Text,
  Uint,      // decimal count (parseUint)
  ByteSize,  // "64K", "1.5MB" (parseByteSize)
  Address,   // "0xc000123456" or decimal (parseAddress)
  Percent,   // "10", "2.5", "10%": above 0, at most 100
  Choice,    // one of `choices`
  Flag,      // true or false; on the command line a switch
};

struct ParamSpec {
  std::string_view name;  // as the HTTP API spells it: "min_bytes"
  ParamKind kind = ParamKind::Text;
  std::string_view fallback;  // the default, as text; empty: none
  std::vector<std::string_view> choices = {};
  std::string_view metavar = {};  // "N", "SIZE" in help
  std::string_view help = {};
  // A one-letter alias: -n on the command line, n= in the API.
  char short_name = 0;
  // The command line's name when it is not `name` with '_' as '-': "ADDR"
  // (upper case: a positional argument), "from-node", "no-frames" (a Flag
  // whose switch says false).
  std::string_view cli_name = {};
  // Not a command-line parameter (only the API has it).
  bool api_only = false;
  // A value must be given (ADDR).
  bool required = false;

  // The same parameter with -c / c= as its alias.
  ParamSpec withAlias(char c) const;
  // The same parameter spelled `cli` on the command line.
  ParamSpec withCliName(std::string_view cli) const;
  // The same parameter, of the HTTP API only.
  ParamSpec apiOnly() const;
  // The same parameter, which must be given.
  ParamSpec mustBeGiven() const;
};

// A parameter of each kind, so that a question's table reads as what each
// one is: uintParam("depth", "4", "D", "levels to show").withAlias('d').
// `fallback` is the default as text; empty: none.
ParamSpec textParam(std::string_view name, std::string_view metavar, std::string_view help);
ParamSpec uintParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                    std::string_view help);
ParamSpec byteSizeParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                        std::string_view help);
ParamSpec addressParam(std::string_view name, std::string_view metavar, std::string_view help);
ParamSpec percentParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                       std::string_view help);
ParamSpec choiceParam(std::string_view name, std::string_view fallback,
                      std::vector<std::string_view> choices, std::string_view help);
ParamSpec flagParam(std::string_view name, bool fallback, std::string_view help);

// "--min-bytes", "ADDR", "--no-frames": how the command line spells `p`.
std::string cliSpelling(const ParamSpec& p);
// The command-line flag or positional's name without dashes.
std::string cliName(const ParamSpec& p);
bool isPositional(const ParamSpec& p);
// The Flag switch on the command line says the opposite (--no-frames).
bool cliNegated(const ParamSpec& p);

// The values given for one question, by ParamSpec, as text.
class ParamValues {
 public:
  // How the front end spells a parameter in messages: cliSpelling or the
  // API name.
  using Spelling = std::function<std::string(const ParamSpec&)>;

  ParamValues(std::span<const ParamSpec> specs, Spelling spelling);

  // The API's parameters: each name must be one of `specs` (by name or short
  // name) and is taken with the last value given, as the command line takes
  // a flag given twice; else unknownParameter() is set.
  static ParamValues fromQueryString(std::span<const ParamSpec> specs,
                                     const std::vector<std::pair<std::string, std::string>>& given);

  // `given_as`: the name the value was given under ("n" for limit), for
  // messages; empty: as the front end spells the parameter.
  void set(const ParamSpec& spec, std::string value, std::string given_as = {});

  // The value given for `name`, else nothing.
  const std::string* given(std::string_view name) const;
  const ParamSpec& spec(std::string_view name) const;
  std::string spell(std::string_view name) const;
  std::span<const ParamSpec> specs() const { return specs_; }
  // The first parameter the query does not take, as a ready error.
  const std::optional<Error>& unknownParameter() const { return unknown_; }

 private:
  std::span<const ParamSpec> specs_;
  Spelling spelling_;
  struct Given {
    std::string_view name;  // the spec's
    std::string value;
    std::string given_as;
  };
  std::vector<Given> values_;
  std::optional<Error> unknown_;
};

// Reads a query's parameters from ParamValues: each getter returns the value
// given, else the spec's default, and remembers the first mistake, which
// error() then holds. A read function ends with `return reader.done(q);`:
// the query read, or the first mistake (an Error::needsInput naming the
// parameter).
class ParamReader {
 public:
  explicit ParamReader(const ParamValues& values);

  bool has(std::string_view name) const { return values_.given(name) != nullptr; }
  std::string text(std::string_view name);
  std::string choice(std::string_view name);
  uint64_t number(std::string_view name);  // Uint, ByteSize or Address, by the spec's kind
  double percent(std::string_view name);
  bool flag(std::string_view name);
  // A parameter that must be given.
  void require(std::string_view name);
  // A rule between values: "accumulation", "must be from 50 to 100" gives
  // "--accumulation must be from 50 to 100" or "accumulation must be ...".
  void fail(std::string_view name, std::string_view problem);
  // A rule about two parameters: "give from or node, not both".
  void failBoth(std::string_view a, std::string_view b);

  const std::optional<Error>& error() const { return error_; }
  template <class Q>
  Expected<Q> done(Q q) const {
    if (error_) return *error_;
    return q;
  }

 private:
  const std::string* raw(std::string_view name) const;
  void setError(std::string_view name, std::string message);
  // The value `parsed`, or T{} after setError says why it is no value.
  template <typename T>
  T valueOrError(std::string_view name, Expected<T> parsed);

  const ParamValues& values_;
  std::optional<Error> error_;
};

// "10", "2.5", "10%": a share of the heap in percent, above 0 and at most 100.
Expected<double> parsePercent(std::string_view text);

}  // namespace goheap::query
