// libFuzzer entry for what a cache hit trusts: the dominator tree, its
// children and the retained sizes an index file hands back, which
// restoreSnapshot checks against the heap (analysis/snapshot.cpp). A real
// dump's parts are computed once; each input is a list of edits to them
// (6 bytes each: which array, which element, its new value), and the
// damaged parts are restored. A refusal is fine. An accepted tree must be a
// tree: every walk up from a node reaches the root, and a walk down from the
// root meets each node once; anything else aborts.
//
// GOHEAP_FUZZ_EXE names the zoo test program; its dump is GOHEAP_FUZZ_EXE.dump
// (fuzz/run.sh). Without it every input is skipped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "dump/reader.h"
#include "fuzz_exe.h"
#include "util/sink.h"

namespace {

std::string* dump_path = nullptr;
const goheap::analysis::Snapshot* original = nullptr;

// Aborts unless `s`'s dominator tree is a tree over its nodes: each walk
// up ends, and a walk down through `children` meets no node twice.
void requireATree(const goheap::analysis::Snapshot& s, const goheap::Csr& children) {
  const uint32_t nodes = s.heap.nodeCount();
  const goheap::NodeId root = s.heap.superRoot();
  std::vector<uint8_t> met(nodes, 0);
  std::vector<goheap::NodeId> stack{root};
  while (!stack.empty()) {
    const goheap::NodeId p = stack.back();
    stack.pop_back();
    if (met[p] != 0) {
      std::fprintf(stderr, "restore_fuzz: node %u is met twice walking down\n", p);
      std::abort();
    }
    met[p] = 1;
    for (goheap::NodeId c : children.neighbors(p)) stack.push_back(c);
  }
  for (goheap::NodeId v = 0; v < nodes; v++) {
    goheap::NodeId u = v;
    for (uint32_t steps = 0; u != root; steps++) {
      if (steps > nodes) {
        std::fprintf(stderr, "restore_fuzz: node %u's dominators go round a cycle\n", v);
        std::abort();
      }
      u = s.dom.idom[u];
      if (u == goheap::kNoNode) break;  // unreachable
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* exe = goheap::fuzz::fuzzExecutable("restore_fuzz");
  if (exe == nullptr) return 0;
  dump_path = new std::string(std::string(exe) + ".dump");
  auto d = goheap::dump::readDumpFile(*dump_path);
  if (!d) {
    std::fprintf(stderr, "restore_fuzz: %s\n", d.error().message().c_str());
    std::abort();
  }
  auto snap = goheap::analysis::buildSnapshot(d.take());
  if (!snap) {
    std::fprintf(stderr, "restore_fuzz: %s\n", snap.error().message().c_str());
    std::abort();
  }
  original = snap->release();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (original == nullptr) return 0;
  // The parts as the index cache would hand them back, the four arrays
  // copied so that the edits do not reach the original.
  goheap::analysis::ComputedParts parts = goheap::analysis::computedPartsOf(*original);
  std::vector<uint32_t> idom = parts.dom.idom.takeVector();
  std::vector<uint32_t> begin = parts.dominator_children.begin.takeVector();
  std::vector<uint32_t> targets = parts.dominator_children.targets.takeVector();
  std::vector<uint64_t> retained = parts.retained.values();
  for (size_t at = 0; at + 6 <= size && at < 6 * 64; at += 6) {
    const uint8_t which = data[at] % 4;
    const uint32_t index = uint32_t{data[at + 1]} | uint32_t{data[at + 2]} << 8;
    const uint32_t value =
        uint32_t{data[at + 3]} | uint32_t{data[at + 4]} << 8 | uint32_t{data[at + 5]} << 16;
    // Values near the node count, or kNoNode for 0xffffff.
    const uint32_t v = value == 0xffffff ? goheap::kNoNode : value;
    switch (which) {
      case 0:
        if (!idom.empty()) idom[index % idom.size()] = v;
        break;
      case 1:
        if (!begin.empty()) begin[index % begin.size()] = v;
        break;
      case 2:
        if (!targets.empty()) targets[index % targets.size()] = v;
        break;
      default:
        if (!retained.empty()) retained[index % retained.size()] = value;
        break;
    }
  }
  parts.dom.idom = std::move(idom);
  parts.dominator_children.begin = std::move(begin);
  parts.dominator_children.targets = std::move(targets);
  parts.retained = goheap::PackedColumn(std::move(retained));
  auto model = goheap::dump::readDumpFile(*dump_path);
  if (!model) std::abort();
  goheap::analysis::LoadOptions load;
  load.threads = 2;
  auto restored = goheap::analysis::restoreSnapshot(*model, std::move(parts), load);
  if (restored) requireATree(**restored, (*restored)->dominatorChildren());
  return 0;
}
