#include "support/ask_question.h"

#include <gtest/gtest.h>

#include "questions/catalog.h"
#include "support/graph_oracles.h"

namespace goheap::testing {

Expected<std::string> questionJson(const std::string& name, const QuestionParams& params,
                                   const query::Session& current, const query::Session* base) {
  const questions::Question* q = questions::findQuestion(name);
  if (q == nullptr) return Error::needsInput("no question " + name);
  GOHEAP_TRY(auto asked, q->read(query::ParamValues::fromQueryString(q->params, params)));
  // The limits goheap serve puts on SQL, so that no statement runs long.
  GOHEAP_TRY(auto answer, asked->answer({current, base, 100, 10}));
  return answer->json();
}

JsonValue askQuestion(const std::string& name, const QuestionParams& params,
                      const query::Session& current, const query::Session* base) {
  Expected<std::string> json = questionJson(name, params, current, base);
  if (!json) {
    ADD_FAILURE() << name << ": " << json.error().message();
    return {};
  }
  return JsonValue::parse(*json);
}

ProgramHeap openProgramHeap(const std::string& version, const std::string& prog) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + version + "/" + prog;
  ProgramHeap heap;
  auto session = openSession(path + ".dump", path);
  if (!session) {
    ADD_FAILURE() << path << ".dump: " << session.error().message();
    return heap;
  }
  heap.session = session.take();
  heap.report = JsonValue::parseFile(path + ".json");
  return heap;
}

Reached reachedObjects(const analysis::Snapshot& s, NodeId removed) {
  const std::vector<char> seen = reachableWithout(s.heap.successors, s.heap.superRoot(), removed);
  Reached r;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!seen[o]) continue;
    r.objects++;
    r.bytes += s.model.objects.size[o];
  }
  return r;
}

}  // namespace goheap::testing
