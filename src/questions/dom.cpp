// goheap dom HEAP: the dominator tree from the roots down, biggest subtrees
// first. A node's retained size is what would be freed if it were gone.
#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "dom",
    .summary = "the dominator tree's biggest subtrees",
    .heaps = HeapsNeeded::One,
    .csv = true,
    .command_line = true,
    .kept = false,
    .description =
        "Shows the dominator tree: under each node, the objects that only it keeps alive, "
        "biggest first. The tree starts at the super-root, whose children are the GC roots "
        "(data and bss segments, goroutines and their frames, finalizers) and the objects "
        "that several roots share. --from ADDR starts at the object containing ADDR.",
    .examples =
        {
            {"goheap dom heap.dump", "four levels, subtrees of 64 KiB and more"},
            {"goheap dom heap.dump --depth 8 --min-bytes 1M", "deeper, only the big subtrees"},
            {"goheap dom heap.dump --from 0xc000123450 -d 2", "what one object keeps alive"},
        },
};

using Rows = std::vector<analysis::DomRow>;

std::string domText(const Heaps& heaps, const DomQuery& /*q*/,
                    const std::vector<analysis::DomRow>& rows, const TextStyle& style) {
  const analysis::Snapshot& snap = heaps.current.snapshot();
  const uint64_t total = snap.retained[snap.heap.superRoot()];
  TextTable t;
  t.addColumns({"retained", "%", "shallow"}, Align::Right);
  size_t node_col = t.addColumn("node");
  if (style.csv) t.addColumn("depth", Align::Right);
  t.setTreeColumn(node_col);
  t.setElastic(node_col, Elide::Middle, 30);
  for (const analysis::DomRow& r : rows) {
    std::string node = query::labelText(r.node);
    if (r.hidden_children > 0) {
      node += "  (+" + formatCount(r.hidden_children) + " more)";
    }
    if (style.csv) {
      t.addRow({std::to_string(r.retained), formatPercent(r.retained, total),
                std::to_string(r.shallow), node, std::to_string(r.depth)});
    } else {
      t.addRow(
          {formatBytes(r.retained), formatPercent(r.retained, total), formatBytes(r.shallow), node},
          r.depth);
    }
  }
  return style.csv ? t.renderCsv() : t.renderText(style.width);
}

const Parts<DomQuery, Rows> kParts{
    .fields =
        {
            field<&DomQuery::depth>(
                uintParam("depth", "4", "D", "levels to show below the start").withAlias('d')),
            field<&DomQuery::min_bytes>(byteSizeParam("min_bytes", "64K", "SIZE",
                                                      "hide subtrees retaining less than this")),
            field<&DomQuery::max_children>(
                uintParam("max_children", "10", "N", "at most this many children per node")),
            field<&DomQuery::from>(
                addressParam("from", "ADDR", "start at the object containing ADDR")),
            field<&DomQuery::from_node>(
                uintParam(
                    "node", "", "N",
                    "start at node N (a label's \"node\" in --json output: roots have no address)")
                    .withCliName("from-node")),
        },
    .check =
        [](DomQuery& q, query::ParamReader& r) {
          if (q.from && q.from_node) r.failBoth("from", "node");
        },
    .run = [](const Heaps& h, const DomQuery& q) { return queryDom(h.current, q); },
    .json = [](const Heaps& h, const DomQuery& /*q*/,
               const Rows& rows) { return domJson(h.current.snapshot(), rows); },
    .text = domText,
};

}  // namespace

const Question& domQuestion() {
  return questionOf<kInfo, kParts>();
}

Expected<std::vector<analysis::DomRow>> queryDom(const Session& session, const DomQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  NodeId start = kNoNode;
  if (q.from) {
    GOHEAP_TRY(const NodeId o, findObject(snap, *q.from, "from"));
    if (!snap.reachable(o)) {
      const std::string what = snap.isRuntimeMetadata(o)
                                   ? " is the runtime's span metadata, not an object"
                                   : " is garbage (unreachable)";
      // Not in the tree: as a missing object, not a wrong parameter.
      return Error::notFound("the object at " + formatHex(snap.address(o)) + what +
                             ": it has no place in the dominator tree")
          .atParameter("from");
    }
    start = o;
  } else if (q.from_node) {
    const uint64_t n = *q.from_node;
    if (n >= snap.heap.nodeCount() ||
        (!snap.reachable(static_cast<NodeId>(n)) && n != snap.heap.superRoot())) {
      return Error::notFound("no reachable node " + std::to_string(n) + " (there are " +
                             std::to_string(snap.heap.nodeCount()) + ")")
          .atParameter("node");
    }
    start = static_cast<NodeId>(n);
  }
  return analysis::dominatorRows(
      snap, static_cast<uint32_t>(std::min<uint64_t>(q.depth, UINT32_MAX)), q.min_bytes,
      static_cast<uint32_t>(std::min<uint64_t>(q.max_children, UINT32_MAX)), start);
}

std::string domJson(const analysis::Snapshot& snap, const std::vector<analysis::DomRow>& rows) {
  return jsonDocument([&](JsonWriter& w) {
    w.field("total_retained", snap.retained[snap.heap.superRoot()]);
    w.arrayOfObjects("rows", rows, [&](const analysis::DomRow& r) {
      w.field("depth", r.depth);
      w.key("node");
      writeLabel(w, r.node);
      w.field("retained", r.retained).field("shallow", r.shallow);
      w.field("children", r.children).field("hidden_children", r.hidden_children);
    });
  });
}

}  // namespace goheap::questions
