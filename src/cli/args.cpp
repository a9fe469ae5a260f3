#include "cli/args.h"

#include <algorithm>
#include <limits>

#include "util/duration.h"
#include "util/enum_names.h"
#include "util/format.h"
#include "util/text.h"

namespace goheap::cli {
namespace {

// Help lines fit in the 80 columns every terminal has.
constexpr size_t kHelpWidth = 80;
// A flag column wider than this pushes its help to the next line rather than
// squeezing every help text into the right margin.
constexpr size_t kMaxFlagColumn = 34;

// Optimal string alignment distance: Levenshtein plus swaps of neighbouring
// letters, the commonest typo ("--sotr"). Case is ignored.
size_t editDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = asciiLower(a[i - 1]) == asciiLower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && asciiLower(a[i - 1]) == asciiLower(b[j - 2]) &&
          asciiLower(a[i - 2]) == asciiLower(b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

// Words of `text` in lines of at most `width` characters; a longer word gets
// a line of its own.
std::vector<std::string> wrapWords(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (start == i) break;
    std::string_view word = text.substr(start, i - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

// Paragraphs are separated by a blank line; each is rewrapped.
void appendParagraphs(std::string& out, std::string_view text) {
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t blank = text.find("\n\n", pos);
    std::string_view para =
        text.substr(pos, blank == std::string_view::npos ? std::string_view::npos : blank - pos);
    std::vector<std::string> lines = wrapWords(para, kHelpWidth);
    if (!lines.empty()) {
      if (!first) out += '\n';
      first = false;
      for (const std::string& l : lines) out += l + "\n";
    }
    if (blank == std::string_view::npos) break;
    pos = blank + 2;
  }
}

// A two-column block: `left` padded to a common width, `right` wrapped in the
// space that leaves.
void appendColumns(std::string& out, const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t left_width = 0;
  for (const auto& [left, right] : rows) {
    if (left.size() <= kMaxFlagColumn) left_width = std::max(left_width, left.size());
  }
  const size_t start = left_width + 3;
  const size_t text_width = std::max<size_t>(kHelpWidth > start ? kHelpWidth - start : 0, 30);
  for (const auto& [left, right] : rows) {
    std::vector<std::string> lines = wrapWords(right, text_width);
    out += left;
    if (lines.empty()) {
      out += '\n';
      continue;
    }
    if (left.size() + 1 >= start) {
      out += '\n';
      out.append(start, ' ');
    } else {
      out.append(start - left.size(), ' ');
    }
    for (size_t k = 0; k < lines.size(); ++k) {
      if (k > 0) out.append(start, ' ');
      out += lines[k];
      out += '\n';
    }
  }
}

std::string joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += sep;
    s += items[i];
  }
  return s;
}

// The number a value of `kind` denotes; String values have none.
Expected<uint64_t> convert(ValueKind kind, std::string_view text) {
  switch (kind) {
    case ValueKind::String:
      return uint64_t{0};
    case ValueKind::Uint:
      return parseUint(text);
    case ValueKind::ByteSize:
      return parseByteSize(text);
    case ValueKind::Address:
      return parseAddress(text);
    case ValueKind::Duration:
      return parseDurationMs(text);
  }
  return uint64_t{0};
}

bool looksLikeFlag(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-';
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// "-1", "-0.5": a negative number given to a flag, not a flag.
bool looksLikeNegativeNumber(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && (isDigit(arg[1]) || arg[1] == '.');
}

// Whether a word was most likely meant as a value of `kind` even though it
// does not parse as one: "0xzz" as an address, "12x" as a number.
bool looksMeantAs(ValueKind kind, std::string_view word) {
  if (word.empty()) return false;
  switch (kind) {
    case ValueKind::String:
      return false;
    case ValueKind::Address:
      return word.starts_with("0x") || word.starts_with("0X") || isDigit(word[0]);
    case ValueKind::Uint:
    case ValueKind::ByteSize:
    case ValueKind::Duration:
      return isDigit(word[0]) || looksLikeNegativeNumber(word);
  }
  return false;
}

// What a value of `kind` looks like, for messages.
constexpr std::array<std::string_view, 5> kExpectedValues = {
    "a value", "a whole number, 0 or more", "a size of 0 or more, like 4096, 64K or 1.5MB",
    "an address, like 0xc000123450", "a duration, like 500ms, 2s or 1m"};
static_assert(namesEveryValue(kExpectedValues, ValueKind::Duration));

std::string expectedValue(ValueKind kind) {
  return std::string(enumName(kind, kExpectedValues, "a value"));
}

bool validName(std::string_view name) {
  if (name.empty() || name[0] == '-') return false;
  return std::none_of(name.begin(), name.end(),
                      [](char c) { return c == '=' || c == ' ' || c == '\t' || c == '\n'; });
}

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

std::optional<std::string> closestMatch(std::string_view given,
                                        std::span<const std::string> candidates) {
  if (given.empty()) return std::nullopt;
  const std::string* best = nullptr;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& c : candidates) {
    size_t d = editDistance(given, c);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // Allow about one typo per three letters; a short name that needs every
  // letter changed is no typo.
  size_t limit = given.size() <= 3 ? 1 : (given.size() <= 6 ? 2 : 3);
  if (best != nullptr && best_distance <= limit && best_distance < given.size()) return *best;
  // An abbreviation: "--min" for "--min-bytes", when it is not ambiguous.
  const std::string* prefixed = nullptr;
  for (const std::string& c : candidates) {
    if (given.size() >= 2 && c.size() > given.size() && c.compare(0, given.size(), given) == 0) {
      if (prefixed != nullptr) return std::nullopt;
      prefixed = &c;
    }
  }
  if (prefixed != nullptr) return *prefixed;
  return std::nullopt;
}

// ---- ParsedArgs ----

const ParsedArgs::Entry* ParsedArgs::find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

bool ParsedArgs::has(std::string_view name) const {
  const Entry* e = find(name);
  return e != nullptr && e->given;
}

std::string_view ParsedArgs::getString(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr || e->values.empty()) return {};
  return e->values.back();
}

uint64_t ParsedArgs::getUint(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr || e->numbers.empty()) return 0;
  return e->numbers.back();
}

bool ParsedArgs::getBool(std::string_view name) const {
  return has(name);
}

std::span<const std::string> ParsedArgs::getStrings(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr) return {};
  return e->values;
}

std::span<const uint64_t> ParsedArgs::getUints(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr) return {};
  return e->numbers;
}

Error ParsedArgs::usageError(std::string_view problem) const {
  return Error(std::string(problem) + "; see 'goheap " + command_ + " --help'");
}

// ---- CommandSpec ----

CommandSpec::CommandSpec(std::string command, std::string description)
    : command_(std::move(command)), description_(std::move(description)) {}

PositionalSpec& CommandSpec::positional(std::string name, std::string help) {
  PositionalSpec& p = positionals_.emplace_back();
  p.name_ = std::move(name);
  p.help_ = std::move(help);
  return p;
}

FlagSpec& CommandSpec::flag(std::string name, std::string metavar, std::string help) {
  FlagSpec& f = flags_.emplace_back();
  f.name_ = std::move(name);
  f.metavar_ = std::move(metavar);
  f.help_ = std::move(help);
  return f;
}

FlagSpec& CommandSpec::sizeFlag(std::string name, std::string help, std::string default_value) {
  FlagSpec& f = flag(std::move(name), "SIZE", std::move(help)).kind(ValueKind::ByteSize);
  if (!default_value.empty()) f.defaultValue(std::move(default_value));
  return f;
}

FlagSpec& CommandSpec::uintFlag(std::string name, std::string metavar, std::string help,
                                std::string default_value) {
  FlagSpec& f = flag(std::move(name), std::move(metavar), std::move(help)).kind(ValueKind::Uint);
  if (!default_value.empty()) f.defaultValue(std::move(default_value));
  return f;
}

FlagSpec& CommandSpec::boolFlag(std::string name, std::string help) {
  FlagSpec& f = flags_.emplace_back();
  f.name_ = std::move(name);
  f.help_ = std::move(help);
  f.boolean_ = true;
  return f;
}

FlagSpec& CommandSpec::choice(std::string name, std::vector<std::string> choices,
                              std::string default_value, std::string help) {
  FlagSpec& f = flags_.emplace_back();
  f.name_ = std::move(name);
  f.metavar_ = joined(choices, "|");
  f.choices_ = std::move(choices);
  f.default_ = std::move(default_value);
  f.help_ = std::move(help);
  return f;
}

CommandSpec& CommandSpec::example(std::string command_line, std::string explanation) {
  examples_.emplace_back(std::move(command_line), std::move(explanation));
  return *this;
}

Error CommandSpec::usageError(std::string_view problem) const {
  return Error(std::string(problem) + "; see 'goheap " + command_ + " --help'");
}

const FlagSpec* CommandSpec::findLong(std::string_view name) const {
  for (const FlagSpec& f : flags_) {
    if (f.name_ == name) return &f;
  }
  return nullptr;
}

const FlagSpec* CommandSpec::findShort(char letter) const {
  for (const FlagSpec& f : flags_) {
    if (f.alias_ != 0 && f.alias_ == letter) return &f;
  }
  return nullptr;
}

Status CommandSpec::validate() const {
  if (command_.empty()) return Error("the command has no name");
  std::vector<std::string> names = {"help"};
  auto claim = [&](const std::string& name) -> Status {
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return Error("'" + name + "' is declared twice");
    }
    names.push_back(name);
    return Status::success();
  };
  std::string aliases = "h";
  for (const FlagSpec& f : flags_) {
    if (!validName(f.name_)) return Error("invalid flag name '" + f.name_ + "'");
    if (Status s = claim(f.name_); !s) return s;
    if (f.alias_ != 0) {
      if (!isAlnum(f.alias_)) return Error("invalid alias for --" + f.name_);
      if (aliases.find(f.alias_) != std::string::npos) {
        return Error(std::string("alias -") + f.alias_ + " of --" + f.name_ + " is already taken");
      }
      aliases += f.alias_;
    }
    if (f.boolean_) {
      if (f.default_.has_value()) return Error("boolean flag --" + f.name_ + " has a default");
      continue;
    }
    if (!f.default_.has_value()) continue;
    if (!f.choices_.empty()) {
      if (std::find(f.choices_.begin(), f.choices_.end(), *f.default_) == f.choices_.end()) {
        return Error("the default of --" + f.name_ + " is not one of its choices");
      }
    } else if (Expected<uint64_t> v = convert(f.kind_, *f.default_); !v) {
      return Error("the default of --" + f.name_ + " is invalid: " + v.error().message());
    }
  }
  bool seen_optional = false;
  for (size_t i = 0; i < positionals_.size(); ++i) {
    const PositionalSpec& p = positionals_[i];
    if (!validName(p.name_)) return Error("invalid argument name '" + p.name_ + "'");
    if (Status s = claim(p.name_); !s) return s;
    if (p.repeated_ && i + 1 != positionals_.size()) {
      return Error("only the last argument may be repeated, not " + p.name_);
    }
    // A required argument after an optional one can be told apart only by its
    // kind: "HEAP [EXE] ADDR" works because an address is not a file name.
    if (p.required_ && seen_optional && p.kind_ == ValueKind::String) {
      return Error(p.name_ +
                   " is required after an optional one and has no kind to tell them apart");
    }
    if (!p.required_) seen_optional = true;
  }
  return Status::success();
}

Error CommandSpec::unknownFlag(std::string_view arg, std::string_view name) const {
  std::vector<std::string> candidates;
  for (const FlagSpec& f : flags_) candidates.push_back(f.name_);
  candidates.emplace_back("help");
  std::string msg = "unknown flag " + std::string(arg);
  if (std::optional<std::string> near = closestMatch(name, candidates)) {
    msg += " (did you mean --" + *near + "?)";
  }
  return usageError(msg);
}

Expected<ParsedArgs> CommandSpec::parse(int count, const char* const* args) const {
  std::vector<std::string> words;
  for (int i = 0; i < count; ++i) words.emplace_back(args[i]);
  return parse(words);
}

Expected<ParsedArgs> CommandSpec::parse(std::span<const std::string> args) const {
  if (Status s = validate(); !s) {
    return Error("internal error in the arguments of 'goheap " + command_ +
                 "': " + s.error().message());
  }

  ParsedArgs out;
  out.command_ = command_;
  for (const FlagSpec& f : flags_) {
    ParsedArgs::Entry& e = out.entries_.emplace_back();
    e.name = f.name_;
    if (f.default_.has_value()) {
      e.values.push_back(*f.default_);
      // validate() has checked the default, so this succeeds.
      if (f.kind_ != ValueKind::String) e.numbers.push_back(*convert(f.kind_, *f.default_));
    }
  }
  for (const PositionalSpec& p : positionals_) out.entries_.emplace_back().name = p.name_;
  auto entry = [&](std::string_view name) -> ParsedArgs::Entry& {
    for (ParsedArgs::Entry& e : out.entries_) {
      if (e.name == name) return e;
    }
    return out.entries_.front();  // unreachable: every declared name has an entry
  };

  // Help wins over every mistake, so "goheap top --bogus --help" still helps.
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      out.help_ = true;
      return out;
    }
  }

  // Records `value` for an entry after checking it against its kind.
  auto set = [&](ParsedArgs::Entry& e, ValueKind kind, bool append,
                 std::string_view value) -> Expected<uint64_t> {
    Expected<uint64_t> number = convert(kind, value);
    if (!number) return number;
    if (!e.given || !append) {
      e.values.clear();
      e.numbers.clear();
    }
    e.given = true;
    e.values.emplace_back(value);
    if (kind != ValueKind::String) e.numbers.push_back(*number);
    return number;
  };

  size_t next_positional = 0;
  bool only_positionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!only_positionals && a == "--") {
      only_positionals = true;
      continue;
    }
    if (only_positionals || !looksLikeFlag(a)) {
      if (next_positional >= positionals_.size()) {
        if (positionals_.empty()) {
          return usageError("unexpected argument '" + a + "': 'goheap " + command_ +
                            "' takes no arguments");
        }
        return usageError("unexpected argument '" + a + "': 'goheap " + command_ + "' takes " +
                          usageLine());
      }
      // An optional positional gives way to a later required one whose kind
      // the word has: in "HEAP [EXE] ADDR", "0xc000012340" is the ADDR.
      if (!positionals_[next_positional].required_) {
        for (size_t k = next_positional + 1; k < positionals_.size(); ++k) {
          const PositionalSpec& later = positionals_[k];
          if (!later.required_ || out.has(later.name_)) continue;
          if (later.kind_ != ValueKind::String && convert(later.kind_, a)) next_positional = k;
          break;
        }
      }
      const PositionalSpec& p = positionals_[next_positional];
      Expected<uint64_t> r = set(entry(p.name_), p.kind_, p.repeated_, a);
      if (!r) return usageError("invalid " + p.name_ + ": " + r.error().message());
      if (!p.repeated_) ++next_positional;
      continue;
    }

    const FlagSpec* f = nullptr;
    std::optional<std::string> inline_value;
    std::string shown;  // the flag as the user typed it, for messages
    if (a.starts_with("--")) {
      std::string_view body = std::string_view(a).substr(2);
      size_t eq = body.find('=');
      std::string_view name = body.substr(0, eq);
      if (eq != std::string_view::npos) inline_value = std::string(body.substr(eq + 1));
      shown = "--" + std::string(name);
      f = findLong(name);
      if (f == nullptr) return unknownFlag(shown, name);
    } else {
      f = findShort(a[1]);
      shown = a.substr(0, 2);
      if (a.size() > 2) {
        if (f == nullptr || f->boolean_) {
          // "-json" is most likely "--json".
          std::string_view body = std::string_view(a).substr(1);
          return unknownFlag(a, body.substr(0, body.find('=')));
        }
        std::string_view rest = std::string_view(a).substr(2);
        if (rest.starts_with("=")) rest.remove_prefix(1);
        inline_value = std::string(rest);
      } else if (f == nullptr) {
        return usageError("unknown flag " + a);
      }
    }

    if (f->boolean_) {
      if (inline_value.has_value()) return usageError("flag " + shown + " does not take a value");
      ParsedArgs::Entry& e = entry(f->name_);
      e.given = true;
      continue;
    }

    std::string value;
    if (inline_value.has_value()) {
      value = *inline_value;
    } else if (i + 1 < args.size() && !looksLikeFlag(args[i + 1])) {
      value = args[++i];
    } else if (i + 1 < args.size() && f->kind_ != ValueKind::String &&
               looksLikeNegativeNumber(args[i + 1])) {
      return usageError("invalid value '" + args[i + 1] + "' for " + shown + ": expected " +
                        expectedValue(f->kind_));
    } else {
      if (!f->choices_.empty()) {
        return usageError("flag " + shown + " needs a value: one of " + joined(f->choices_, ", "));
      }
      return usageError("flag " + shown + " needs a value (" + f->metavar_ + ")");
    }

    if (!f->choices_.empty() &&
        std::find(f->choices_.begin(), f->choices_.end(), value) == f->choices_.end()) {
      std::string msg = "invalid value '" + value + "' for " + shown + ": expected one of " +
                        joined(f->choices_, ", ");
      if (std::optional<std::string> near = closestMatch(value, f->choices_)) {
        msg += " (did you mean " + *near + "?)";
      }
      return usageError(msg);
    }
    Expected<uint64_t> r = set(entry(f->name_), f->kind_, f->repeatable_, value);
    if (!r) return usageError("invalid value for " + shown + ": " + r.error().message());
  }

  for (size_t k = next_positional; k < positionals_.size(); ++k) {
    const PositionalSpec& p = positionals_[k];
    if (p.required_ && !out.has(p.name_)) {
      // "obj HEAP 0xzz": the bad address went to the optional EXE before
      // it; say what is wrong with it rather than that ADDR is missing.
      for (size_t q = 0; q < k; ++q) {
        const PositionalSpec& earlier = positionals_[q];
        if (earlier.required_ || !out.has(earlier.name_)) continue;
        const std::string word(out.getString(earlier.name_));
        if (!looksMeantAs(p.kind_, word)) continue;
        Expected<uint64_t> parsed = convert(p.kind_, word);
        if (!parsed) {
          std::string why = parsed.error().message();
          if (why.find("expected") == std::string::npos) {
            why += "; expected " + expectedValue(p.kind_);
          }
          return usageError("invalid " + p.name_ + ": " + why);
        }
      }
      return usageError("missing " + p.name_ + " (" + p.help_ + ")");
    }
  }
  return out;
}

std::string CommandSpec::usageLine() const {
  std::string s;
  for (const PositionalSpec& p : positionals_) {
    if (!s.empty()) s += ' ';
    std::string word = p.name_ + (p.repeated_ ? "..." : "");
    s += p.required_ ? word : "[" + word + "]";
  }
  return s;
}

std::string CommandSpec::help() const {
  std::string out = "usage: goheap " + command_;
  std::string positionals = usageLine();
  if (!positionals.empty()) out += " " + positionals;
  out += " [flags]\n\n";

  if (!description_.empty()) {
    appendParagraphs(out, description_);
    out += '\n';
  }

  if (!positionals_.empty()) {
    out += "arguments:\n";
    std::vector<std::pair<std::string, std::string>> rows;
    for (const PositionalSpec& p : positionals_) {
      std::string text = p.help_;
      if (!p.required_) text += " (optional)";
      if (p.kind_ == ValueKind::ByteSize) text += "; " + std::string(kByteSizeUnitsHelp);
      rows.emplace_back("  " + p.name_, text);
    }
    appendColumns(out, rows);
    out += '\n';
  }

  out += "flags:\n";
  std::vector<std::pair<std::string, std::string>> rows;
  bool any_size = false, any_duration = false;
  for (const FlagSpec& f : flags_) {
    std::string left = f.alias_ != 0 ? std::string("  -") + f.alias_ + ", " : "      ";
    left += "--" + f.name_;
    if (!f.metavar_.empty()) left += " " + f.metavar_;
    std::string text = f.help_;
    if (f.default_.has_value() && !f.default_->empty()) text += " (default: " + *f.default_ + ")";
    if (f.repeatable_) text += " (repeatable)";
    any_size = any_size || f.kind_ == ValueKind::ByteSize;
    any_duration = any_duration || f.kind_ == ValueKind::Duration;
    rows.emplace_back(std::move(left), std::move(text));
  }
  rows.emplace_back("  -h, --help", "show this help and exit");
  appendColumns(out, rows);
  if (any_size) {
    out += '\n';
    for (const std::string& l : wrapWords(kByteSizeUnitsHelp, kHelpWidth - 2))
      out += "  " + l + "\n";
  }
  if (any_duration) {
    if (!any_size) out += '\n';
    for (const std::string& l : wrapWords(kDurationUnitsHelp, kHelpWidth - 2))
      out += "  " + l + "\n";
  }

  if (!examples_.empty()) {
    out += "\nexamples:\n";
    for (size_t i = 0; i < examples_.size(); ++i) {
      const auto& [line, explanation] = examples_[i];
      if (i > 0) out += '\n';
      out += "  " + line + "\n";
      for (const std::string& l : wrapWords(explanation, kHelpWidth - 6))
        out += "      " + l + "\n";
    }
  }
  return out;
}

}  // namespace goheap::cli
