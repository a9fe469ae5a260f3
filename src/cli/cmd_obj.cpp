// goheap obj DUMP ADDR: everything the dump says about one object.
#include <algorithm>

#include "analysis/reports.h"
#include "cli/command.h"
#include "cli/text_table.h"
#include "query/labels.h"
#include "query/queries.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec objSpec() {
  return queryCommandSpec(
      "obj",
      "Shows the object containing ADDR: its size, retained size and immediate "
      "dominator, its contents in hex, the pointers it holds, the objects and "
      "roots that point to it, and the stack that allocated it (when the dump "
      "has an allocation sample for it).",
      /*csv=*/false, query::objParams(),
      {{"goheap obj heap.dump 0xc000123450", "the object at that address"},
       {"goheap obj heap.dump ./server 0xc000123450",
        "with the executable: referring globals named"},
       {"goheap obj heap.dump 0xc000123450 --bytes 4K --json", "more contents, as JSON"}});
}

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

}  // namespace

int runObj(int argc, const char* const* argv) {
  return runQueryCommand(
      objSpec(), argc, argv, query::objParams(), query::readObj,
      [](const ParsedArgs& args, const query::Session& session, const query::ObjQuery& q,
         OutputFormat format) {
        const analysis::Snapshot& snap = session.snapshot();
        std::optional<query::QueryError> error;
        std::optional<analysis::ObjectInfo> found = query::queryObj(session, q, error);
        if (!found) return failQuery(args, *error);
        const analysis::ObjectInfo& info = *found;
        if (format == OutputFormat::Json) {
          print(query::objJson(snap, info, q.bytes));
          return kExitOk;
        }
        const uint64_t shown = std::min(info.size, q.bytes);
        auto contents = snap.model.objectBytes(info.label.node).first(shown);
        std::string out = query::labelText(info.label) + "\n";
        if (!info.type.empty()) out += "  type        " + info.type + " (from DWARF)\n";
        out += "  size        " + formatBytes(info.size) + " (" + info.shape + ")\n";
        if (info.reachable) {
          out += "  retained    " + formatBytes(info.retained) + "\n";
          out += "  dominator   " + query::labelText(info.idom) + "\n";
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
          t.addColumn("field");
          t.addColumn("type");
          size_t value_col = t.addColumn("value");
          t.setElastic(value_col, Elide::End, 16);
          for (const typing::FieldValue& f : info.fields) {
            t.addRow({formatOffset(f.offset), f.path.empty() ? "(value)" : f.path, f.type,
                      f.is_string ? "\"" + f.value + "\"" : f.value});
          }
          std::string table = t.renderText(outputWidth() > 4 ? outputWidth() - 4 : 0);
          for (size_t start = 0; start < table.size();) {
            const size_t nl = table.find('\n', start);
            out += "    " + table.substr(start, nl == std::string::npos ? nl : nl - start + 1);
            if (nl == std::string::npos) break;
            start = nl + 1;
          }
        }
        out += "  pointers    " + std::to_string(info.pointers.size()) + "\n";
        for (const analysis::Reference& r : info.pointers) {
          out += "    +" + std::to_string(*r.offset) + (r.field.empty() ? "" : " " + r.field) +
                 "  " + formatHex(r.value) + "  ";
          out += r.target.kind == "non-heap" ? "(outside the heap)" : query::labelText(r.target);
          out += "\n";
        }
        out += "  referrers   " + formatCount(info.referrer_count);
        if (info.referrers.size() < info.referrer_count) {
          out += ", first " + std::to_string(info.referrers.size()) + " shown (--referrers)";
        }
        out += "\n";
        for (const analysis::Reference& r : info.referrers) {
          out += "    " + query::labelText(r.target);
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
            out += "    " + std::string(f.function) + (f.inlined ? "  (inlined)" : "") +
                   "\n        " + std::string(f.file) + ":" + std::to_string(f.line);
            if (f.function_start_line > 0) {
              out += "  (function starts at line " + std::to_string(f.function_start_line) + ")";
            }
            out += "\n";
          }
        }
        print(out);
        return kExitOk;
      });
}

}  // namespace goheap::cli
