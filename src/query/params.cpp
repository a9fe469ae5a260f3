#include "query/params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "util/format.h"

namespace goheap::query {

ParamSpec ParamSpec::withAlias(char c) const {
  ParamSpec p = *this;
  p.short_name = c;
  return p;
}

ParamSpec ParamSpec::withCliName(std::string_view cli) const {
  ParamSpec p = *this;
  p.cli_name = cli;
  return p;
}

ParamSpec ParamSpec::apiOnly() const {
  ParamSpec p = *this;
  p.api_only = true;
  return p;
}

ParamSpec ParamSpec::mustBeGiven() const {
  ParamSpec p = *this;
  p.required = true;
  return p;
}

namespace {

ParamSpec param(std::string_view name, ParamKind kind, std::string_view fallback,
                std::string_view metavar, std::string_view help) {
  ParamSpec p;
  p.name = name;
  p.kind = kind;
  p.fallback = fallback;
  p.metavar = metavar;
  p.help = help;
  return p;
}

}  // namespace

ParamSpec textParam(std::string_view name, std::string_view metavar, std::string_view help) {
  return param(name, ParamKind::Text, "", metavar, help);
}

ParamSpec uintParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                    std::string_view help) {
  return param(name, ParamKind::Uint, fallback, metavar, help);
}

ParamSpec byteSizeParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                        std::string_view help) {
  return param(name, ParamKind::ByteSize, fallback, metavar, help);
}

ParamSpec addressParam(std::string_view name, std::string_view metavar, std::string_view help) {
  return param(name, ParamKind::Address, "", metavar, help);
}

ParamSpec percentParam(std::string_view name, std::string_view fallback, std::string_view metavar,
                       std::string_view help) {
  return param(name, ParamKind::Percent, fallback, metavar, help);
}

ParamSpec choiceParam(std::string_view name, std::string_view fallback,
                      std::vector<std::string_view> choices, std::string_view help) {
  ParamSpec p = param(name, ParamKind::Choice, fallback, {}, help);
  p.choices = std::move(choices);
  return p;
}

ParamSpec flagParam(std::string_view name, bool fallback, std::string_view help) {
  return param(name, ParamKind::Flag, fallback ? "true" : "false", {}, help);
}

std::string cliName(const ParamSpec& p) {
  if (!p.cli_name.empty()) return std::string(p.cli_name);
  std::string name(p.name);
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

bool isPositional(const ParamSpec& p) {
  return !p.cli_name.empty() && std::isupper(static_cast<unsigned char>(p.cli_name[0]));
}

bool cliNegated(const ParamSpec& p) {
  return p.kind == ParamKind::Flag && p.cli_name.starts_with("no-");
}

std::string cliSpelling(const ParamSpec& p) {
  return isPositional(p) ? cliName(p) : "--" + cliName(p);
}

ParamValues::ParamValues(std::span<const ParamSpec> specs, Spelling spelling)
    : specs_(specs), spelling_(std::move(spelling)) {}

ParamValues ParamValues::fromQueryString(
    std::span<const ParamSpec> specs,
    const std::vector<std::pair<std::string, std::string>>& given) {
  ParamValues values(specs, [](const ParamSpec& p) { return std::string(p.name); });
  for (const auto& [name, value] : given) {
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& p : specs) {
      if (p.name == name || (p.short_name != 0 && name.size() == 1 && name[0] == p.short_name)) {
        spec = &p;
      }
    }
    if (spec == nullptr) {
      if (!values.unknown_) {
        std::string list;
        for (const ParamSpec& p : specs) list += (list.empty() ? "" : ", ") + std::string(p.name);
        values.unknown_ =
            Error::needsInput("unknown parameter \"" + name +
                              "\" (this endpoint takes: " + (list.empty() ? "none" : list) + ")")
                .atParameter(name);
      }
      continue;
    }
    values.set(*spec, value, name);  // the last value given counts, as on the command line
  }
  return values;
}

void ParamValues::set(const ParamSpec& spec, std::string value, std::string given_as) {
  for (Given& g : values_) {
    if (g.name == spec.name) {
      g.value = std::move(value);
      g.given_as = std::move(given_as);
      return;
    }
  }
  values_.push_back({spec.name, std::move(value), std::move(given_as)});
}

const std::string* ParamValues::given(std::string_view name) const {
  for (const Given& g : values_) {
    if (g.name == name) return &g.value;
  }
  return nullptr;
}

std::string ParamValues::spell(std::string_view name) const {
  for (const Given& g : values_) {
    if (g.name == name && !g.given_as.empty()) return g.given_as;
  }
  return spelling_(spec(name));
}

const ParamSpec& ParamValues::spec(std::string_view name) const {
  for (const ParamSpec& p : specs_) {
    if (p.name == name) return p;
  }
  // A query reading a parameter it did not declare is a bug in the query.
  throw std::logic_error("query parameter not declared: " + std::string(name));
}

ParamReader::ParamReader(const ParamValues& values) : values_(values) {
  if (values.unknownParameter()) error_ = values.unknownParameter();
}

const std::string* ParamReader::raw(std::string_view name) const {
  if (const std::string* v = values_.given(name)) return v;
  return nullptr;
}

void ParamReader::setError(std::string_view name, std::string message) {
  if (!error_) error_ = Error::needsInput(std::move(message)).atParameter(name);
}

std::string ParamReader::text(std::string_view name) {
  const std::string* v = raw(name);
  return v != nullptr ? *v : std::string(values_.spec(name).fallback);
}

std::string ParamReader::choice(std::string_view name) {
  const ParamSpec& spec = values_.spec(name);
  std::string v = text(name);
  if (std::find(spec.choices.begin(), spec.choices.end(), v) != spec.choices.end()) return v;
  std::string list;
  for (std::string_view c : spec.choices) list += (list.empty() ? "" : ", ") + std::string(c);
  setError(name, "bad value \"" + v + "\" for " + values_.spell(name) + ": one of " + list);
  return std::string(spec.fallback);
}

uint64_t ParamReader::number(std::string_view name) {
  const ParamSpec& spec = values_.spec(name);
  const std::string* v = raw(name);
  const std::string_view written = v != nullptr ? std::string_view(*v) : spec.fallback;
  if (v == nullptr && written.empty()) return 0;  // no default: the caller checks has()
  Expected<uint64_t> parsed = spec.kind == ParamKind::ByteSize  ? parseByteSize(written)
                              : spec.kind == ParamKind::Address ? parseAddress(written)
                                                                : parseUint(written);
  return valueOrError(name, std::move(parsed));
}

double ParamReader::percent(std::string_view name) {
  return valueOrError(name, parsePercent(text(name)));
}

template <typename T>
T ParamReader::valueOrError(std::string_view name, Expected<T> parsed) {
  if (!parsed) {
    setError(name, "bad value for " + values_.spell(name) + ": " + parsed.error().message());
    return T{};
  }
  return *parsed;
}

bool ParamReader::flag(std::string_view name) {
  const std::string v = text(name);
  if (v == "true" || v == "1" || v.empty()) return true;
  if (v == "false" || v == "0") return false;
  setError(name, "bad value \"" + v + "\" for " + values_.spell(name) + ": true or false");
  return false;
}

void ParamReader::require(std::string_view name) {
  if (!has(name)) setError(name, "missing parameter \"" + values_.spell(name) + "\"");
}

void ParamReader::fail(std::string_view name, std::string_view problem) {
  setError(name, values_.spell(name) + " " + std::string(problem));
}

void ParamReader::failBoth(std::string_view a, std::string_view b) {
  setError(a, "give " + values_.spell(a) + " or " + values_.spell(b) + ", not both");
}

Expected<double> parsePercent(std::string_view text) {
  const std::string original(text);
  if (text.ends_with('%')) text.remove_suffix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return Error("\"" + original + "\" is not a percentage (like 10 or 2.5)");
  }
  if (v <= 0 || v > 100) {
    return Error("the percentage must be above 0 and at most 100, not " + original);
  }
  return v;
}

}  // namespace goheap::query
