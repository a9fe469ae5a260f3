// goheap cache list|clear: the index cache's entries (cache/cache_directory.h),
// what each was made from, and a way to empty it.
#include <ctime>
#include <string>

#include "cache/cache_directory.h"
#include "cli/command.h"
#include "cli/output_width.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/text_table.h"

namespace goheap::cli {

namespace {

CommandSpec cacheSpec() {
  CommandSpec spec(
      "cache",
      "Shows or empties the index cache. Every command that opens a heap keeps what it "
      "computed (the graph, the dominator tree, retained sizes, types and names) in a file "
      "of the cache, so that opening the same heap again, with the same executable and "
      "goheap, reads that file instead of computing it all again. An entry is used only "
      "when the heap file, the executable and goheap are those it was made from; a changed "
      "dump simply misses.\n\n"
      "The cache is a folder: --cache DIR, else $XDG_CACHE_HOME/goheap, else "
      "~/.cache/goheap. It is kept within --cache-size (10 GiB by default) by removing "
      "whole entries, least recently used first. `list` shows its entries, most recently "
      "used first; `clear` removes them all. Both touch only files goheap named.");
  spec.positional("ACTION", "list or clear");
  spec.flag("cache", "DIR",
            "the cache's folder (default $XDG_CACHE_HOME/goheap, else ~/.cache/goheap)")
      .defaultValue("");
  spec.boolFlag("json", "print JSON (schema in docs/cli-json.md) instead of text (list only)");
  spec.example("goheap cache list", "the entries of the default cache, most recently used first");
  spec.example("goheap cache list --json", "the same as JSON, for scripts");
  spec.example("goheap cache list --cache /scratch/goheap-cache", "the entries of another folder");
  spec.example("goheap cache clear", "remove every entry of the default cache");
  return spec;
}

// "2026-11-25 10:15:02", local time.
std::string localTime(int64_t ns) {
  const time_t seconds = static_cast<time_t>(ns / 1000000000);
  tm parts{};
  if (::localtime_r(&seconds, &parts) == nullptr) return "?";
  char text[32];
  if (std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts) == 0) return "?";
  return text;
}

std::string listJson(const cache::CacheDirectory& dir,
                     const std::vector<cache::CacheEntry>& entries) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject();
  w.field("schema_version", 1);
  w.field("directory", dir.path());
  uint64_t total = 0;
  for (const cache::CacheEntry& e : entries) total += e.size;
  w.field("bytes", total);
  w.arrayOfObjects("entries", entries, [&](const cache::CacheEntry& e) {
    w.field("key", e.key.hex());
    w.field("path", e.path);
    w.field("bytes", e.size);
    w.field("last_used_ns", e.last_used_ns);
    if (e.description) {
      const cache::EntryDescription& d = *e.description;
      w.key("description").beginObject();
      w.field("input_path", d.input_path);
      w.field("input_size", d.input_size);
      w.field("input_mtime_ns", d.input_mtime_ns);
      if (!d.exe_path.empty()) w.field("exe_path", d.exe_path);
      w.field("goheap_version", d.goheap_version);
      w.field("created_ns", d.created_ns);
      w.endObject();
    } else {
      w.field("error", e.description.error().message());
    }
  });
  w.endObject();
  out += '\n';
  return out;
}

std::string listText(const cache::CacheDirectory& dir,
                     const std::vector<cache::CacheEntry>& entries) {
  uint64_t total = 0;
  for (const cache::CacheEntry& e : entries) total += e.size;
  std::string out = dir.path() + ": " + formatCount(entries.size()) +
                    (entries.size() == 1 ? " entry, " : " entries, ") + formatBytes(total) + "\n";
  if (entries.empty()) return out;
  TextTable t;
  t.addColumn("last used");
  t.addColumn("size", Align::Right);
  t.addColumn("key");
  const size_t heap = t.addColumns({"heap", "executable", "goheap"});
  t.setElastic(heap, Elide::Middle, 20);
  for (const cache::CacheEntry& e : entries) {
    const std::string key = e.key.hex().substr(0, 12);
    if (!e.description) {
      // The path is the row's already; the reason is what is left.
      std::string why = e.description.error().message();
      if (why.starts_with(e.path + ": ")) why.erase(0, e.path.size() + 2);
      t.addRow({localTime(e.last_used_ns), formatBytes(e.size), key, "(unreadable: " + why + ")",
                "", ""});
      continue;
    }
    const cache::EntryDescription& d = *e.description;
    t.addRow({localTime(e.last_used_ns), formatBytes(e.size), key,
              d.input_path + " (" + formatBytes(d.input_size) + ")",
              d.exe_path.empty() ? "-" : d.exe_path, d.goheap_version});
  }
  return out + t.renderText(outputWidth());
}

}  // namespace

int runCache(int argc, const char* const* argv) {
  const CommandSpec spec = cacheSpec();
  return runParsed(spec, argc, argv, [&](const ParsedArgs& args) {
    const std::string action(args.getString("ACTION"));
    if (action != "list" && action != "clear") {
      return fail(args.usageError("ACTION is list or clear, not '" + action + "'"), kExitUsage);
    }
    const bool json = args.getBool("json");
    if (json && action != "list") {
      return fail(args.usageError("--json goes with list"), kExitUsage);
    }
    const cache::CacheDirectory dir = cache::CacheDirectory::open(
        std::string(args.getString("cache")), cache::kDefaultCacheBytes);
    if (action == "clear") {
      Expected<cache::ClearResult> cleared = dir.clear();
      if (!cleared) return fail(cleared.error());
      print("removed " + formatCount(cleared->entries) +
            (cleared->entries == 1 ? " entry" : " entries") + " (" + formatBytes(cleared->bytes) +
            ") from " + dir.path() + "\n");
      return kExitOk;
    }
    Expected<std::vector<cache::CacheEntry>> entries = dir.list();
    if (!entries) return fail(entries.error());
    print(json ? listJson(dir, *entries) : listText(dir, *entries));
    return kExitOk;
  });
}

}  // namespace goheap::cli
