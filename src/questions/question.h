// A question goheap answers, described once for every front end. Each
// question is one file in this folder that defines a Question: its name,
// its help, its parameters (ParamSpecs), and how it is asked: read the
// parameters, compute the answer from the heaps, write it as JSON
// (docs/cli-json.md) and as text. catalog.cpp lists them all; from that one
// table come the CLI's commands (`goheap NAME`), the HTTP API's endpoints
// (/api/NAME) and the MCP server's tools, so they take the same parameters,
// reject the same mistakes and give the same answers by construction.
// docs/architecture.md has the recipe for adding one.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/params.h"
#include "query/session.h"
#include "questions/common_params.h"
#include "questions/typed_questions.h"
#include "util/error.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/text_table.h"

namespace goheap::questions {

using query::ParamSpec;
using query::ParamValues;
using query::Session;

// The heaps a question is asked of, and the limits the front end puts on
// costly answers.
struct Heaps {
  const Session& current;         // NEW, for diff
  const Session* base = nullptr;  // OLD, for diff; --base for sql
  uint64_t max_rows = 0;          // rows an SQL statement keeps at most; 0: all
  double seconds = 0;             // how long an SQL statement may run; 0: no limit
  // Set by another thread when the asker gave up (an MCP client's
  // cancellation): SQL stops at its next check. Null: never.
  const std::atomic<bool>* cancelled = nullptr;
};

// How a text answer is laid out.
struct TextStyle {
  size_t width = 0;  // columns to fit tables in; 0: no limit
  bool csv = false;  // CSV instead of a table, where the question offers it
};

// One answer, ready to be written in each form a front end shows.
class Answer {
 public:
  virtual ~Answer() = default;
  // The JSON document of `goheap NAME --json` and /api/NAME.
  virtual std::string json() const = 0;
  // What `goheap NAME` prints.
  virtual std::string text(const TextStyle& style) const = 0;
  // Warnings the text does not carry (the JSON does): the CLI tells them on
  // stderr after the answer.
  virtual std::vector<std::string> warnings() const { return {}; }
};

// A question with its parameters read: what computes the answer from the
// heaps (an Error::notFound when what it names is not in them).
class Asked {
 public:
  virtual ~Asked() = default;
  virtual Expected<std::unique_ptr<const Answer>> answer(const Heaps& heaps) const = 0;
};

// Which heaps a question needs.
enum class HeapsNeeded : uint8_t {
  One,         // HEAP [EXE]
  OldAndNew,   // OLD NEW [EXE]: Heaps::base is OLD
  OneAndBase,  // HEAP [EXE], and --base OLD if given
};

// A usage example for the question's help: the command line and what it does.
struct Example {
  std::string_view command_line;
  std::string_view explanation;
};

// What a question is, for its help and its front ends.
struct QuestionInfo {
  std::string_view name = {};     // "top": `goheap top`, /api/top
  std::string_view summary = {};  // one line, in `goheap help`
  HeapsNeeded heaps = HeapsNeeded::One;
  bool csv = false;          // the text can be CSV (--csv)
  bool command_line = true;  // false: the HTTP API only (the web UI's flame graph)
  // The answer takes seconds on a big heap: goheap serve keeps it, by its
  // parsed parameters, in the Session's memo.
  bool kept = false;
  std::string_view description = {};  // the help's paragraphs
  // A static QuestionInfo keeps the examples' array for the program's life.
  std::initializer_list<Example> examples = {};
};

struct Question : QuestionInfo {
  std::vector<ParamSpec> params;
  // Reads and checks the values given, before any heap is opened: an
  // Error::needsInput naming the parameter for a mistake.
  std::function<Expected<std::unique_ptr<const Asked>>(const ParamValues& values)> read;
};

// One parameter, and how it is read into the question's struct Q.
template <class Q>
struct Field {
  ParamSpec spec;
  void (*read)(query::ParamReader& r, const ParamSpec& spec, Q& q) = nullptr;
};

// The parts a question file writes, typed by its parameters Q and its
// result R; makeQuestion turns them into a Question.
template <class Q, class R>
struct Parts {
  std::vector<Field<Q>> fields = {};
  // Rules beyond one value's kind (dom's from and node, not both), told
  // with r.fail; may also settle a value (search's limit 0 means 20).
  void (*check)(Q& q, query::ParamReader& r) = nullptr;
  Expected<R> (*run)(const Heaps& heaps, const Q& q) = nullptr;
  std::string (*json)(const Heaps& heaps, const Q& q, const R& r) = nullptr;
  // Null for a question of the HTTP API only: its JSON is its text.
  std::string (*text)(const Heaps& heaps, const Q& q, const R& r, const TextStyle& style) = nullptr;
  std::vector<std::string> (*warnings)(const R& r) = nullptr;
};

// How a value is stored, by the member's type.
inline void readInto(query::ParamReader& r, const ParamSpec& p, std::string& v) {
  v = p.kind == query::ParamKind::Choice ? r.choice(p.name) : r.text(p.name);
}
inline void readInto(query::ParamReader& r, const ParamSpec& p, uint64_t& v) {
  v = r.number(p.name);
}
inline void readInto(query::ParamReader& r, const ParamSpec& p, std::optional<uint64_t>& v) {
  if (r.has(p.name)) v = r.number(p.name);
}
inline void readInto(query::ParamReader& r, const ParamSpec& p, double& v) {
  v = r.percent(p.name);
}
inline void readInto(query::ParamReader& r, const ParamSpec& p, bool& v) {
  v = r.flag(p.name);
}

template <class M>
struct MemberOf;
template <class Q, class T>
struct MemberOf<T Q::*> {
  using Struct = Q;
};

// A parameter read into `Member` of its question's struct:
// field<&TopQuery::limit>(limitParam(...)).
template <auto Member>
Field<typename MemberOf<decltype(Member)>::Struct> field(ParamSpec spec) {
  using Q = typename MemberOf<decltype(Member)>::Struct;
  return {std::move(spec),
          [](query::ParamReader& r, const ParamSpec& p, Q& q) { readInto(r, p, q.*Member); }};
}

template <class Q, class R>
Expected<Q> readFields(const Parts<Q, R>& parts, const ParamValues& values) {
  query::ParamReader r(values);
  Q q;
  for (const Field<Q>& f : parts.fields) {
    if (f.spec.required) r.require(f.spec.name);
    f.read(r, f.spec, q);
  }
  if (parts.check != nullptr) parts.check(q, r);
  return r.done(std::move(q));
}

template <class Q, class R>
class PartsAnswer final : public Answer {
 public:
  PartsAnswer(const Parts<Q, R>& parts, const Heaps& heaps, const Q& q, R r)
      : parts_(parts), heaps_(heaps), q_(q), r_(std::move(r)) {}
  std::string json() const override { return parts_.json(heaps_, q_, r_); }
  std::string text(const TextStyle& style) const override {
    return parts_.text != nullptr ? parts_.text(heaps_, q_, r_, style) : json();
  }
  std::vector<std::string> warnings() const override {
    return parts_.warnings != nullptr ? parts_.warnings(r_) : std::vector<std::string>{};
  }

 private:
  const Parts<Q, R>& parts_;
  Heaps heaps_;
  Q q_;
  R r_;
};

template <class Q, class R>
class PartsAsked final : public Asked {
 public:
  PartsAsked(const Parts<Q, R>& parts, Q q) : parts_(parts), q_(std::move(q)) {}
  Expected<std::unique_ptr<const Answer>> answer(const Heaps& heaps) const override {
    GOHEAP_TRY(R r, parts_.run(heaps, q_));
    return std::unique_ptr<const Answer>(
        std::make_unique<PartsAnswer<Q, R>>(parts_, heaps, q_, std::move(r)));
  }

 private:
  const Parts<Q, R>& parts_;
  Q q_;
};

// A question from its description and its typed parts (which it refers to:
// give it ones of static storage).
template <class Q, class R>
Question makeQuestion(const QuestionInfo& info, const Parts<Q, R>& parts) {
  Question q{info, {}, {}};
  for (const Field<Q>& f : parts.fields) q.params.push_back(f.spec);
  q.read = [&parts](const ParamValues& values) -> Expected<std::unique_ptr<const Asked>> {
    GOHEAP_TRY(Q read, readFields(parts, values));
    return std::unique_ptr<const Asked>(std::make_unique<PartsAsked<Q, R>>(parts, std::move(read)));
  };
  return q;
}

// The Question of a question file's kInfo and kParts, made on first use:
// what each file's accessor (topQuestion(), ...) returns.
template <const QuestionInfo& info, const auto& parts>
const Question& questionOf() {
  static const Question question = makeQuestion(info, parts);
  return question;
}

// A group of like objects (analysis::GarbageRow, AccumulatedType) as the
// answers write it: its name, what named it (type, site, shape, ...), how
// many objects and their bytes.
template <class Group>
void writeObjectGroup(JsonWriter& w, const Group& g) {
  w.field("name", g.name).field("source", g.source).field("count", g.count);
  w.field("bytes", g.bytes);
}

// A JSON document as every answer writes it: an object that starts with
// its schema_version, its fields written by `body`.
std::string jsonDocument(const std::function<void(JsonWriter& w)>& body,
                         JsonWriter::Style style = JsonWriter::Style::Pretty);

// The key goheap serve keeps a `kept` question's answer under: the question
// and its parameters as read (so "n=05" and "n=5" share one answer).
std::string answerKey(const Question& question, const ParamValues& values);

// Text indented by `prefix` line by line (a table inside a section).
std::string indentLines(const std::string& text, std::string_view prefix);

}  // namespace goheap::questions
