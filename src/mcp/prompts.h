// The MCP server's prompts: an investigation written out as the tool calls
// a model should make, in order, with the user's heaps filled in.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcp/tools.h"
#include "util/error.h"

namespace goheap::mcp {

struct PromptArgument {
  std::string_view name;
  std::string_view description;
  bool required = false;
};

struct Prompt {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::vector<PromptArgument> arguments;
  // The prompt's text from the arguments' values, in the order of
  // `arguments` ("" for an optional one left out).
  std::function<std::string(const std::vector<std::string>& values)> render;
};

// The text of `prompt` from the arguments a client gave by name, or the
// required one it left out.
Expected<std::string> renderPrompt(const Prompt& prompt,
                                   const std::vector<std::pair<std::string, std::string>>& given);

// The prompts for tools whose heaps come from `heaps`: with
// HeapChoice::Served the heaps are the server's, and no prompt asks for one.
const std::vector<Prompt>& prompts(HeapChoice heaps);

}  // namespace goheap::mcp
