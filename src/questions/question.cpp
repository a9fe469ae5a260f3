#include "questions/question.h"

#include "query/answer_cache.h"

namespace goheap::questions {

std::string answerKey(const Question& question, const ParamValues& values) {
  query::AnswerKey key(question.name);
  query::ParamReader r(values);
  using K = query::ParamKind;
  for (const ParamSpec& p : question.params) {
    // An optional parameter without a default (dom's from) is keyed by
    // whether it was given; a number by its value, not its spelling.
    if (!r.has(p.name) && p.fallback.empty()) {
      key.add(p.name, "-");
    } else if (p.kind == K::Text || p.kind == K::Choice) {
      key.add(p.name, r.text(p.name));
    } else if (p.kind == K::Percent) {
      key.add(p.name, r.percent(p.name));
    } else if (p.kind == K::Flag) {
      key.add(p.name, r.flag(p.name));
    } else {
      key.add(p.name, r.number(p.name));
    }
  }
  return key.str();
}

std::string jsonDocument(const std::function<void(JsonWriter& w)>& body, JsonWriter::Style style) {
  std::string out;
  JsonWriter w(out, style);
  w.beginObject();
  w.field("schema_version", 1);
  body(w);
  w.endObject();
  return out;
}

std::string indentLines(const std::string& text, std::string_view prefix) {
  std::string out;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const size_t stop = end == std::string::npos ? text.size() : end + 1;
    out += prefix;
    out.append(text, start, stop - start);
    start = stop;
  }
  return out;
}

}  // namespace goheap::questions
