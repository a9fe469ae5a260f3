// Graphviz DOT of one object's neighbourhood: the shortest paths from GC
// roots to it (solid edges, labelled with the field or offset of each step)
// and the part of the dominator tree below it (dashed edges: "keeps alive").
// Sizes are in the labels so the picture answers "why is this alive, and
// what does it cost".
#include <set>

#include "analysis/dominator_rows.h"
#include "analysis/labels.h"
#include "analysis/paths.h"
#include "export/formats.h"
#include "util/format.h"
#include "util/string_literal.h"

namespace goheap::exporting {

namespace {

std::string nodeLabel(const analysis::Snapshot& s, const analysis::NodeLabel& l) {
  std::string text = l.name;
  if (l.kind == "object") {
    text.append("\n").append(formatHex(l.address)).append("\n");
    text.append(formatBytes(s.shallowSize(l.node))).append(" own, ");
    text.append(formatBytes(s.retained[l.node])).append(" retained");
  } else if (l.node != kNoNode && s.retained[l.node] > 0) {
    text.append("\n").append(formatBytes(s.retained[l.node])).append(" retained");
  }
  return text;
}

}  // namespace

Status writeDot(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  if (options.focus == kNoNode || !s.heap.isObject(options.focus)) {
    return Error("dot needs one object (--object ADDR)");
  }
  std::set<NodeId> written;
  auto node = [&](const analysis::NodeLabel& l, bool focus) {
    if (!written.insert(l.node).second) return;
    std::string attrs = "label=" + quotedLiteral(nodeLabel(s, l));
    if (focus) {
      attrs += ", style=filled, fillcolor=gold";
    } else if (l.kind != "object") {
      attrs += ", shape=box, style=filled, fillcolor=lightblue";
    }
    out.text("  n" + std::to_string(l.node) + " [" + attrs + "];\n");
  };
  out.text("digraph goheap {\n  rankdir=LR;\n  node [shape=ellipse, fontsize=10];\n");
  out.text("  edge [fontsize=9];\n");
  node(analysis::labelNode(s, options.focus), true);

  // Why it is alive.
  std::set<std::pair<NodeId, NodeId>> edges;
  for (const analysis::Path& p : analysis::pathsToRoots(s, options.focus, options.max_paths)) {
    for (size_t i = 0; i < p.steps.size(); i++) node(p.steps[i].node, i + 1 == p.steps.size());
    for (size_t i = 0; i + 1 < p.steps.size(); i++) {
      const analysis::PathStep& a = p.steps[i];
      const analysis::PathStep& b = p.steps[i + 1];
      if (!edges.insert({a.node.node, b.node.node}).second) continue;
      std::string label = !a.field.empty() ? a.field : a.offset ? formatOffset(*a.offset) : "";
      out.text("  n" + std::to_string(a.node.node) + " -> n" + std::to_string(b.node.node) +
               (label.empty() ? "" : " [label=" + quotedLiteral(label) + "]") + ";\n");
    }
  }

  // What it keeps alive.
  const std::vector<analysis::DomRow> rows =
      analysis::dominatorRows(s, options.depth + 1, 0, options.max_children, options.focus);
  std::vector<NodeId> parents;  // by depth
  for (const analysis::DomRow& r : rows) {
    parents.resize(r.depth + 1);
    parents[r.depth] = r.node.node;
    node(r.node, r.node.node == options.focus);
    if (r.depth > 0) {
      out.text("  n" + std::to_string(parents[r.depth - 1]) + " -> n" +
               std::to_string(r.node.node) + " [style=dashed, color=gray40];\n");
    }
    if (r.hidden_children > 0) {
      const std::string more = std::string(1, 'm').append(std::to_string(r.node.node));
      const std::string label =
          std::string(1, '+').append(formatCount(r.hidden_children)).append(" more");
      out.text("  " + more + " [shape=plaintext, label=" + quotedLiteral(label) + "];\n");
      out.text("  n" + std::to_string(r.node.node) + " -> " + more +
               " [style=dashed, color=gray70];\n");
    }
  }
  out.text("}\n");
  return Status::success();
}

}  // namespace goheap::exporting
