#include "questions/question.h"

#include "query/answer_cache.h"

namespace goheap::questions {

std::string answerKey(const Question& question, const ParamValues& values) {
  query::AnswerKey key(question.name);
  query::ParamReader r(values);
  for (const ParamSpec& p : question.params) {
    // An optional parameter without a default (dom's from) is keyed by
    // whether it was given.
    if (!r.has(p.name) && p.fallback.empty()) {
      key.add(p.name, "-");
      continue;
    }
    switch (p.kind) {
      case query::ParamKind::Text:
        key.add(p.name, r.text(p.name));
        break;
      case query::ParamKind::Choice:
        key.add(p.name, r.choice(p.name));
        break;
      case query::ParamKind::Uint:
      case query::ParamKind::ByteSize:
      case query::ParamKind::Address:
        key.add(p.name, r.number(p.name));
        break;
      case query::ParamKind::Percent:
        key.add(p.name, r.percent(p.name));
        break;
      case query::ParamKind::Flag:
        key.add(p.name, r.flag(p.name));
        break;
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
