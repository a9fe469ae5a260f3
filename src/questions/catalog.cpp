#include "questions/catalog.h"

namespace goheap::questions {

// Each question's file defines its descriptor; a new question adds one line
// here and one to the table below (docs/architecture.md).
const Question& summaryQuestion();
const Question& topQuestion();
const Question& domQuestion();
const Question& pathsQuestion();
const Question& objQuestion();
const Question& goroutinesQuestion();
const Question& suspectsQuestion();
const Question& diffQuestion();
const Question& dupsQuestion();
const Question& wasteQuestion();
const Question& sqlQuestion();
const Question& flameQuestion();
const Question& searchQuestion();
const Question& memoryQuestion();

std::span<const Question* const> allQuestions() {
  static const Question* const kQuestions[] = {
      &summaryQuestion(), &topQuestion(),        &domQuestion(),      &pathsQuestion(),
      &objQuestion(),     &goroutinesQuestion(), &suspectsQuestion(), &diffQuestion(),
      &dupsQuestion(),    &wasteQuestion(),      &sqlQuestion(),      &flameQuestion(),
      &searchQuestion(),  &memoryQuestion(),
  };
  return kQuestions;
}

const Question* findQuestion(std::string_view name) {
  for (const Question* q : allQuestions()) {
    if (q->name == name) return q;
  }
  return nullptr;
}

}  // namespace goheap::questions
