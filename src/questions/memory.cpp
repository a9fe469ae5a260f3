// goheap memory HEAP [EXE]: where every mapped byte of the process is.
#include <algorithm>
#include <numeric>

#include "questions/question.h"

namespace goheap::questions {

namespace {

using model::MemoryCategory;

const QuestionInfo kInfo{
    .name = "memory",
    .summary = "where the process's memory is: heap, stacks, C, files, runtime, reserved",
    .heaps = HeapsNeeded::One,
    .csv = false,
    .command_line = true,
    .kept = false,
    .description =
        "Puts every mapped byte of the process into one category: heap_objects, "
        "heap_fragmentation, heap_free, heap_released, goroutine_stacks, runtime_metadata, "
        "c_heap (C's malloc, as cgo uses it), thread_stacks, mapped_files, "
        "executable_and_libraries, reserved (PROT_NONE) and other, found from the Go "
        "runtime's own structures (arenas, spans, persistentalloc, the threads' g0 stacks), "
        "the core's file mappings and glibc malloc's chunks and arenas. Each category says the "
        "evidence "
        "behind it, and memstats' figure where it holds the same, flagged with ! when the "
        "two differ by more than 10%.\n"
        "A kernel core lists every mapping; gdb's gcore leaves out shared file mappings and "
        "writes reservations as readable zeros, which goheap takes for reserved. "
        "Only a snap (goheap snap PID, or --pid) knows what is resident: it records each "
        "mapping's Rss. A heap dump has no mappings: its memstats fill the Go categories, "
        "and the others are unknown.",
    .examples =
        {
            {"goheap memory core.1234 ./server", "the categories of a kernel core"},
            {"goheap memory --pid 4242", "snap the running process, with what is resident"},
            {"goheap memory core.1234 ./server --mappings", "and every mapping, by address"},
            {"goheap memory heap.dump --json", "what the dump's memstats say, as JSON"},
        },
};

// "1.2 GiB", or "-" when unknown.
std::string bytesOrDash(const std::optional<uint64_t>& b) {
  return b ? formatBytes(*b) : "-";
}

// The categories by bytes, biggest first (unknown ones last).
std::vector<size_t> byBytes(const model::ProcessMemory& m) {
  std::vector<size_t> order(model::kMemoryCategoryCount);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const model::MemoryCategoryUse &x = m.categories[a], &y = m.categories[b];
    if (x.known != y.known) return x.known;
    return x.bytes > y.bytes;
  });
  return order;
}

std::string share(uint64_t part, uint64_t total) {
  if (total == 0) return "-";
  return formatPercent(part, total);
}

const Parts<MemoryQuery, analysis::ProcessMemoryView> kParts{
    .fields =
        {
            field<&MemoryQuery::mappings>(flagParam(
                "mappings", false, "also list every mapping with the bytes of each category")),
        },
    .run = [](const Heaps& h, const MemoryQuery&) -> Expected<analysis::ProcessMemoryView> {
      return analysis::processMemory(h.current.snapshot());
    },
    .json =
        [](const Heaps&, const MemoryQuery& q, const analysis::ProcessMemoryView& v) {
          return jsonDocument([&](JsonWriter& j) { writeProcessMemoryFields(j, v, q.mappings); });
        },
    .text = [](const Heaps&, const MemoryQuery& q, const analysis::ProcessMemoryView& v,
               const TextStyle& style) { return processMemoryText(v, q.mappings, style.width); },
};

}  // namespace

const Question& memoryQuestion() {
  return questionOf<kInfo, kParts>();
}

void writeProcessMemoryFields(JsonWriter& j, const analysis::ProcessMemoryView& v, bool mappings) {
  const model::ProcessMemory& m = v.memory;
  j.field("source", m.source).field("total", m.total).field("total_is", m.total_is);
  j.key("resident");
  m.resident ? j.value(*m.resident) : j.null();
  j.key("categories").beginArray();
  for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
    const model::MemoryCategoryUse& use = m.categories[c];
    j.beginObject();
    j.field("name", model::memoryCategoryName(static_cast<MemoryCategory>(c)));
    j.key("bytes");
    use.known ? j.value(use.bytes) : j.null();
    j.key("resident");
    use.resident ? j.value(*use.resident) : j.null();
    j.field("detail", use.detail);
    if (const std::optional<analysis::MemstatsFigure>& f = v.memstats[c]) {
      j.key("memstats").beginObject();
      j.field("field", f->field).field("bytes", f->bytes).field("differs", f->differs);
      j.endObject();
    }
    j.endObject();
  }
  j.endArray();
  j.key("notes").beginArray();
  for (const std::string& n : m.notes) j.value(n);
  j.endArray();
  j.key("advice").beginArray();
  for (const std::string& a : v.advice) j.value(a);
  j.endArray();
  if (mappings) {
    j.arrayOfObjects("mappings", m.mappings, [&](const model::ProcessMapping& p) {
      j.field("start", formatHex(p.start)).field("end", formatHex(p.end));
      j.field("size", p.size()).field("perms", p.perms).field("path", p.path);
      j.key("resident");
      p.resident ? j.value(*p.resident) : j.null();
      j.field("category", model::memoryCategoryName(p.mainCategory()));
      j.key("bytes").beginObject();
      for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
        if (p.bytes[c] != 0) {
          j.field(model::memoryCategoryName(static_cast<MemoryCategory>(c)), p.bytes[c]);
        }
      }
      j.endObject();
    });
  }
}

std::string processMemoryText(const analysis::ProcessMemoryView& v, bool mappings, size_t width) {
  const model::ProcessMemory& m = v.memory;
  std::string out = "Process memory, from " + m.source + ": " + formatBytes(m.total) +
                    (m.source == "memstats" ? " obtained from the OS" : " mapped") + ", resident " +
                    bytesOrDash(m.resident) + "\n";
  out += "  total: " + m.total_is + "\n\n";
  TextTable t;
  t.addColumns({"bytes", "resident", "share"}, Align::Right);
  t.addColumns({"category", "memstats"});
  t.setElastic(t.addColumn("what it is"), Elide::End, 24);
  for (size_t c : byBytes(m)) {
    const model::MemoryCategoryUse& use = m.categories[c];
    const auto cat = static_cast<MemoryCategory>(c);
    std::string memstats;
    if (const std::optional<analysis::MemstatsFigure>& f = v.memstats[c]) {
      memstats = formatBytes(f->bytes) + (f->differs ? " !" : "");
    }
    t.addRow({use.known ? formatBytes(use.bytes) : "unknown", bytesOrDash(use.resident),
              use.known ? share(use.bytes, m.total) : "-",
              std::string(model::memoryCategoryName(cat)), memstats,
              std::string(model::memoryCategoryMeaning(cat))});
  }
  out += t.renderText(width);
  bool any_figure = false;
  for (const auto& f : v.memstats) any_figure |= f.has_value();
  if (any_figure) {
    out += "  memstats: the figure that holds the same (";
    bool first = true;
    for (size_t c = 0; c < model::kMemoryCategoryCount; ++c) {
      if (!v.memstats[c]) continue;
      out += (first ? "" : "; ") +
             std::string(model::memoryCategoryName(static_cast<MemoryCategory>(c))) + ": " +
             v.memstats[c]->field;
      first = false;
    }
    out += "); ! when it differs by more than 10%\n";
  }
  out += "\nEvidence:\n";
  for (size_t c : byBytes(m)) {
    const model::MemoryCategoryUse& use = m.categories[c];
    if (use.detail.empty()) continue;
    out += "  " + std::string(model::memoryCategoryName(static_cast<MemoryCategory>(c))) + ": " +
           use.detail + "\n";
  }
  for (const std::string& n : m.notes) out += "Note: " + n + "\n";
  if (!v.advice.empty()) {
    out += "\nAdvice:\n";
    for (const std::string& a : v.advice) out += "  " + a + "\n";
  }
  if (mappings && !m.mappings.empty()) {
    TextTable mt;
    mt.addColumns({"start", "end"});
    mt.addColumns({"size", "resident"}, Align::Right);
    mt.addColumns({"perms", "category"});
    mt.setElastic(mt.addColumn("path"), Elide::Middle, 20);
    for (const model::ProcessMapping& p : m.mappings) {
      mt.addRow({formatHex(p.start), formatHex(p.end), formatBytes(p.size()),
                 bytesOrDash(p.resident), p.perms,
                 std::string(model::memoryCategoryName(p.mainCategory())), p.path});
    }
    out += "\nMappings (" + formatCount(m.mappings.size()) +
           "; category: the one with most of its bytes):\n" + mt.renderText(width);
  }
  return out;
}

std::string processMemoryLine(const analysis::ProcessMemoryView& v) {
  const model::ProcessMemory& m = v.memory;
  auto bytes = [&](MemoryCategory c) { return formatBytes(m[c].bytes); };
  std::string line =
      formatBytes(m.total) + " " +
      (m.source == "memstats" ? "obtained from the OS (memstats)" : "mapped (" + m.source + ")") +
      ": heap " +
      formatBytes(m[MemoryCategory::HeapObjects].bytes +
                  m[MemoryCategory::HeapFragmentation].bytes) +
      " in use, " + bytes(MemoryCategory::HeapFree) + " free, " +
      bytes(MemoryCategory::HeapReleased) + " released; stacks " +
      bytes(MemoryCategory::GoroutineStacks);
  if (m[MemoryCategory::CHeap].known) line += "; C " + bytes(MemoryCategory::CHeap);
  if (m.resident) line += "; resident " + formatBytes(*m.resident);
  return line + " (goheap memory)";
}

}  // namespace goheap::questions
