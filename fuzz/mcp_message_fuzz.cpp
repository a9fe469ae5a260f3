// libFuzzer entry for the MCP server's protocol (src/mcp/server.h), which
// reads what any client sends: every input, taken as one JSON-RPC message,
// gets nothing or one answer that is a single line of well-formed JSON, and
// never a crash. The tools open no heap here (the provider refuses), so the
// fuzzer spends its time on the protocol and the arguments' checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mcp/server.h"

namespace {

class NoHeaps final : public goheap::mcp::HeapProvider {
 public:
  goheap::mcp::HeapChoice choice() const override { return goheap::mcp::HeapChoice::FromArguments; }
  goheap::Expected<Heaps> heaps(const goheap::questions::Question& /*question*/,
                                const goheap::mcp::ToolArguments& /*arguments*/,
                                goheap::Sink& /*sink*/) override {
    return goheap::Error::needsInput("the fuzzer opens no heap");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static NoHeaps heaps;
  static goheap::mcp::McpServer server(heaps, {});
  goheap::mcp::CallContext call;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<std::string> answer = server.handleText(text, call);
  if (!answer) return 0;
  if (answer->find('\n') != std::string::npos) std::abort();  // stdio needs one line
  if (!goheap::readJson(*answer)) std::abort();
  return 0;
}
