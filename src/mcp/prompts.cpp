#include "mcp/prompts.h"

namespace goheap::mcp {

namespace {

// How a step writes a tool call with its arguments:
// `diff (source: "new.dump", base: "old.dump")`.
using CallText = std::function<std::string(std::string_view tool, std::string extra)>;

// A call's arguments, as a step writes them: those of the heap, then `extra`.
std::string callWith(std::string_view tool, std::vector<std::string> arguments) {
  std::string out(tool);
  for (size_t i = 0; i < arguments.size(); i++) {
    if (arguments[i].empty()) continue;
    out += (out.size() == tool.size() ? " (" : ", ") + arguments[i];
  }
  return out.size() == tool.size() ? out : out + ")";
}

std::string quoted(std::string_view key, const std::string& value) {
  return value.empty() ? "" : std::string(key) + ": \"" + value + "\"";
}

const PromptArgument kOld{"old", "the earlier heap dump or core (the baseline)", true};
const PromptArgument kNew{"new", "the later heap dump or core of the same program", true};
const PromptArgument kExecutable{"executable", "the program's executable, for Go types", false};
const PromptArgument kSource{"source", "the heap dump or core", true};
const PromptArgument kAddress{"address", "the object's address, as Go prints it (0xc000123456)",
                              true};

constexpr std::string_view kGrowthTitle = "Investigate memory growth";
constexpr std::string_view kGrowthDescription =
    "Find what grew between two heaps of one program and what keeps it alive: diff, then "
    "suspects, then paths.";
constexpr std::string_view kAliveTitle = "Why is this object alive";
constexpr std::string_view kAliveDescription =
    "Explain what keeps one object in memory: what it is, then its paths from the roots.";

std::string growthSteps(const CallText& call) {
  return "1. Call " + call("diff", "") +
         " to see which types, sites or holders grew, by bytes.\n"
         "2. Call " +
         call("suspects", "") +
         " for the objects that hold much of the heap (leak suspects) and the goroutines blocked "
         "forever.\n"
         "3. For the biggest growth, take an address from the suspects (or from top or dom with "
         "the type as filter) and call " +
         call("paths", "addr: ADDRESS") +
         " to see the chain from a root (a global, a goroutine's frame) to it.\n"
         "4. Where the holder is not clear, call " +
         call("obj", "addr: ADDRESS") +
         ", or sql for counts by field (resource goheap://docs/sql.md).\n"
         "Then say what leaks, how much it grew, which global, goroutine or field holds it, and "
         "what change to the code would let it go.";
}

std::string aliveSteps(const CallText& call, const std::string& address) {
  const std::string addr = quoted("addr", address);
  return "1. Call " + call("obj", addr) +
         " to see what the object is: its type, size, fields and what it retains.\n"
         "2. Call " +
         call("paths", addr) +
         " for the chains of references from the roots to it.\n"
         "3. Call " +
         call("dom", "") +
         " if what holds it is itself held by something bigger.\n"
         "Then name the root (a global, a goroutine and its frame) and each field on the way, "
         "and say which link would have to go for the object to be freed.";
}

// Calls on the heap `source` (with `exe`), diff's also on `base`.
CallText callsOn(std::string source, std::string exe, std::string base = {}) {
  return [=](std::string_view tool, std::string extra) {
    return callWith(tool, {quoted("source", source), tool == "diff" ? quoted("base", base) : "",
                           quoted("executable", exe), std::move(extra)});
  };
}

std::vector<Prompt> makePrompts(HeapChoice heaps) {
  std::vector<Prompt> list;
  if (heaps == HeapChoice::FromArguments) {
    // Arguments in order: old, new, executable; source, address, executable.
    list.push_back({"investigate-memory-growth",
                    kGrowthTitle,
                    kGrowthDescription,
                    {kOld, kNew, kExecutable},
                    [](const std::vector<std::string>& v) {
                      return "My Go program's memory grew between two heaps: " + v[0] +
                             " (earlier) and " + v[1] +
                             " (later). Use goheap's tools to find out why.\n" +
                             growthSteps(callsOn(v[1], v[2], v[0]));
                    }});
    list.push_back({"why-is-this-object-alive",
                    kAliveTitle,
                    kAliveDescription,
                    {kSource, kAddress, kExecutable},
                    [](const std::vector<std::string>& v) {
                      return "Why is the object at " + v[1] + " in " + v[0] +
                             " still in memory? Use goheap's tools.\n" +
                             aliveSteps(callsOn(v[0], v[2]), v[1]);
                    }});
    return list;
  }
  const CallText call = [](std::string_view tool, std::string extra) {
    return callWith(tool, {std::move(extra)});
  };
  list.push_back({"investigate-memory-growth",
                  kGrowthTitle,
                  "Find what grew between the server's base heap and its heap, and what keeps "
                  "it alive: diff, then suspects, then paths.",
                  {},
                  [call](const std::vector<std::string>&) {
                    return "My Go program's memory grew between the base heap and the heap "
                           "goheap serve has open. Use goheap's tools to find out why.\n" +
                           growthSteps(call);
                  }});
  list.push_back({"why-is-this-object-alive",
                  kAliveTitle,
                  kAliveDescription,
                  {kAddress},
                  [call](const std::vector<std::string>& v) {
                    return "Why is the object at " + v[0] +
                           " still in memory? Use goheap's tools.\n" + aliveSteps(call, v[0]);
                  }});
  return list;
}

}  // namespace

Expected<std::string> renderPrompt(const Prompt& prompt,
                                   const std::vector<std::pair<std::string, std::string>>& given) {
  std::vector<std::string> values;
  for (const PromptArgument& a : prompt.arguments) {
    std::string value;
    for (const auto& [key, v] : given) {
      if (key == a.name) value = v;
    }
    if (value.empty() && a.required) {
      return Error("missing argument \"" + std::string(a.name) + "\" of the prompt " +
                   std::string(prompt.name));
    }
    values.push_back(std::move(value));
  }
  return prompt.render(values);
}

const std::vector<Prompt>& prompts(HeapChoice heaps) {
  static const std::vector<Prompt> from_arguments = makePrompts(HeapChoice::FromArguments);
  static const std::vector<Prompt> served = makePrompts(HeapChoice::Served);
  return heaps == HeapChoice::FromArguments ? from_arguments : served;
}

}  // namespace goheap::mcp
