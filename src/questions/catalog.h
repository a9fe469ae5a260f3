// Every question goheap answers, in the order `goheap help` lists them: the
// one table the CLI's commands, the HTTP API's endpoints and the MCP
// server's tools are made from (question.h).
#pragma once

#include <span>
#include <string_view>

#include "questions/question.h"

namespace goheap::questions {

std::span<const Question* const> allQuestions();
// The question called `name`, else null.
const Question* findQuestion(std::string_view name);

}  // namespace goheap::questions
