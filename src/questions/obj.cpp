// goheap obj HEAP ADDR: everything the heap says about one object.
#include <algorithm>
#include <cstdio>

#include "questions/question.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "obj",
    .summary = "one object: contents, pointers, referrers, allocation stack, retained size",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = false,
    .description =
        "Shows the object containing ADDR: its size, retained size and immediate dominator, "
        "its contents in hex, the pointers it holds, the objects and roots that point to it, "
        "and the stack that allocated it (when the dump has an allocation sample for it).",
    .examples =
        {
            {"goheap obj heap.dump 0xc000123450", "the object at that address"},
            {"goheap obj heap.dump ./server 0xc000123450",
             "with the executable: referring globals named"},
            {"goheap obj heap.dump 0xc000123450 --bytes 4K --json", "more contents, as JSON"},
        },
};

std::string hexDump(std::span<const uint8_t> bytes, uint64_t base) {
  std::string out;
  char buf[16];
  for (size_t row = 0; row < bytes.size(); row += 16) {
    out += "    " + formatHex(base + row) + "  ";
    for (size_t i = row; i < row + 16; i++) {
      if (i < bytes.size()) {
        std::snprintf(buf, sizeof buf, "%02x ", bytes[i]);
        out += buf;
      } else {
        out += "   ";
      }
      if (i == row + 7) out += ' ';
    }
    out += " |";
    for (size_t i = row; i < row + 16 && i < bytes.size(); i++) {
      out += (bytes[i] >= 32 && bytes[i] < 127) ? static_cast<char>(bytes[i]) : '.';
    }
    out += "|\n";
  }
  return out;
}

std::string objText(const Heaps& heaps, const ObjQuery& q, const analysis::ObjectInfo& info,
                    const TextStyle& style) {
  const analysis::Snapshot& snap = heaps.current.snapshot();
  const uint64_t shown = std::min(info.size, q.bytes);
  auto contents = snap.model.objectBytes(info.label.node).first(shown);
  std::string out = labelText(info.label) + "\n";
  if (!info.type.empty()) out += "  type        " + info.type + " (from DWARF)\n";
  out += "  size        " + formatBytes(info.size) + " (" + info.shape + ")\n";
  if (info.reachable) {
    out += "  retained    " + formatBytes(info.retained) + "\n";
    out += "  dominator   " + labelText(info.idom) + "\n";
  } else if (info.runtime_metadata) {
    out +=
        "  metadata    the runtime's own bitmaps at the end of a span, which the dump "
        "writes as an object: no object lives here\n";
  } else {
    out += "  garbage     unreachable from every root; will be freed by the next GC\n";
  }
  out += "  contents    " + formatBytes(info.size);
  if (shown < info.size) out += ", first " + formatBytes(shown) + " shown (--bytes)";
  out += "\n" + hexDump(contents, info.label.address);
  if (!info.fields.empty()) {
    out += "  fields\n";
    TextTable t;
    t.addColumn("offset", Align::Right);
    t.addColumns({"field", "type"});
    size_t value_col = t.addColumn("value");
    t.setElastic(value_col, Elide::End, 16);
    for (const typing::FieldValue& f : info.fields) {
      t.addRow({formatOffset(f.offset), f.path.empty() ? "(value)" : f.path, f.type,
                f.is_string ? "\"" + f.value + "\"" : f.value});
    }
    out += indentLines(t.renderText(style.width > 4 ? style.width - 4 : 0), "    ");
  }
  out += "  pointers    " + std::to_string(info.pointers.size()) + "\n";
  for (const analysis::Reference& r : info.pointers) {
    out += "    +" + std::to_string(*r.offset) + (r.field.empty() ? "" : " " + r.field) + "  " +
           formatHex(r.value) + "  ";
    out += r.target.kind == "non-heap" ? "(outside the heap)" : labelText(r.target);
    out += "\n";
  }
  out += "  referrers   " + formatCount(info.referrer_count);
  if (info.referrers.size() < info.referrer_count) {
    out += ", first " + std::to_string(info.referrers.size()) + " shown (--referrers)";
  }
  out += "\n";
  for (const analysis::Reference& r : info.referrers) {
    out += "    " + labelText(r.target);
    if (!r.target.global.empty()) {
      out += "  at " + formatHex(r.slot_address);
    } else if (r.offset) {
      out += "  +" + std::to_string(*r.offset);
    }
    if (!r.field.empty()) out += "  " + r.field;
    out += "\n";
  }
  if (info.alloc_stack.empty()) {
    out +=
        "  allocated   (no allocation sample; set runtime.MemProfileRate = 1 to record "
        "every allocation)\n";
  } else {
    out += "  allocated at\n";
    for (const analysis::AllocFrame& f : info.alloc_stack) {
      out += "    " + std::string(f.function) + (f.inlined ? "  (inlined)" : "") + "\n        " +
             std::string(f.file) + ":" + std::to_string(f.line);
      if (f.function_start_line > 0) {
        out += "  (function starts at line " + std::to_string(f.function_start_line) + ")";
      }
      out += "\n";
    }
  }
  return out;
}

const Parts<ObjQuery, analysis::ObjectInfo> kParts{
    .fields =
        {
            field<&ObjQuery::addr>(addrParam()),
            field<&ObjQuery::bytes>(byteSizeParam("bytes", "256", "SIZE",
                                                  "show at most this much of the contents in hex")),
            field<&ObjQuery::referrers>(
                uintParam("referrers", "20", "N", "list at most this many referrers")),
        },
    .run = [](const Heaps& h, const ObjQuery& q) { return queryObj(h.current, q); },
    .json =
        [](const Heaps& h, const ObjQuery& q, const analysis::ObjectInfo& info) {
          return objJson(h.current.snapshot(), info, q.bytes);
        },
    .text = objText,
};

}  // namespace

const Question& objQuestion() {
  return questionOf<kInfo, kParts>();
}

Expected<analysis::ObjectInfo> queryObj(const Session& session, const ObjQuery& q) {
  const analysis::Snapshot& snap = session.snapshot();
  GOHEAP_TRY(const NodeId o, findObject(snap, q.addr, "addr"));
  return analysis::objectInfo(snap, o, q.referrers);
}

std::string objJson(const analysis::Snapshot& snap, const analysis::ObjectInfo& info,
                    uint64_t max_bytes) {
  const uint64_t shown = std::min(info.size, max_bytes);
  auto contents = snap.model.objectBytes(info.label.node).first(shown);
  return jsonDocument([&](JsonWriter& w) {
    w.key("object");
    writeLabel(w, info.label);
    if (!info.type.empty()) {
      w.field("type", info.type);
      w.arrayOfObjects("fields", info.fields, [&](const typing::FieldValue& f) {
        w.field("path", f.path).field("offset", f.offset).field("type", f.type);
        w.field("value", f.value);
        if (f.points_to != 0) w.field("points_to", formatHex(f.points_to));
      });
    }
    w.field("size", info.size).field("retained", info.retained);
    w.field("reachable", info.reachable).field("shape", info.shape);
    if (info.runtime_metadata) w.field("runtime_metadata", true);
    w.key("immediate_dominator");
    writeLabel(w, info.idom);
    w.field("contents_hex", formatHexBytes(contents));
    w.field("contents_truncated", shown < info.size);
    w.arrayOfObjects("pointers", info.pointers, [&](const analysis::Reference& r) {
      w.field("offset", *r.offset).field("slot_address", formatHex(r.slot_address));
      w.field("value", formatHex(r.value));
      if (!r.field.empty()) w.field("field", r.field);
      w.key("target");
      writeLabel(w, r.target);
    });
    w.field("referrer_count", info.referrer_count);
    w.arrayOfObjects("referrers", info.referrers, [&](const analysis::Reference& r) {
      w.key("holder");
      writeLabel(w, r.target);
      if (r.offset) {
        w.field("offset", *r.offset).field("slot_address", formatHex(r.slot_address));
      }
      if (!r.field.empty()) w.field("field", r.field);
    });
    w.arrayOfObjects("alloc_stack", info.alloc_stack, [&](const analysis::AllocFrame& f) {
      w.field("function", std::string(f.function)).field("file", std::string(f.file));
      w.field("line", f.line);
      if (f.function_start_line > 0) w.field("function_start_line", f.function_start_line);
      if (f.inlined) w.field("inlined", true);
    });
  });
}

}  // namespace goheap::questions
