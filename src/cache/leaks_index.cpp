#include "cache/leaks_index.h"

#include <string>
#include <string_view>

#include "cache/snapshot_index.h"
#include "util/json_reader.h"
#include "util/json_writer.h"

namespace goheap::cache {

std::vector<uint8_t> encodeGoroutineLeaks(const analysis::GoroutineLeaks& leaks) {
  std::string text;
  {
    JsonWriter w(text);
    w.beginObject();
    w.key("problem").value(leaks.problem);
    w.key("layout_source").value(leaks.layout_source);
    w.key("records").value(static_cast<uint64_t>(leaks.leaked.size()));
    // By record: a heap has few leaked goroutines next to its records.
    w.key("leaked").beginArray();
    for (size_t r = 0; r < leaks.leaked.size(); r++) {
      if (leaks.leaked[r] != 0) w.value(static_cast<uint64_t>(r));
    }
    w.endArray();
    w.key("leaked_retained").value(leaks.leaked_retained);
    w.key("unlinked_sync_waits").value(leaks.unlinked_sync_waits);
    w.key("main_in_select_forever").value(leaks.main_in_select_forever);
    w.arrayOfObjects("not_leaked_because", leaks.not_leaked_because, [&](const auto& entry) {
      w.key("record").value(entry.first);
      w.key("why").value(entry.second);
    });
    w.endObject();
  }
  return std::vector<uint8_t>(text.begin(), text.end());
}

void addGoroutineLeaks(std::function<const analysis::GoroutineLeaks&()> leaks,
                       IndexWriter& writer) {
  writer.addLast(kGoroutineLeaks, 1,
                 [leaks = std::move(leaks)] { return encodeGoroutineLeaks(leaks()); });
}

namespace {

// The reader of one record's members: the first problem is kept, and every
// later read gives a default.
class LeaksReader {
 public:
  explicit LeaksReader(const JsonNode& root) : root_(root) {}

  const JsonNode* member(const JsonNode& object, std::string_view key, JsonNode::Kind kind) {
    const JsonNode* n = object.find(key);
    if (n == nullptr || n->kind() != kind) {
      fail("no " + std::string(key) + " of the right kind");
      return nullptr;
    }
    return n;
  }
  uint64_t number(const JsonNode& object, std::string_view key, uint64_t max) {
    const JsonNode* n = member(object, key, JsonNode::Kind::Number);
    if (n == nullptr) return 0;
    const std::optional<int64_t> v = n->integer();
    if (!v || *v < 0 || static_cast<uint64_t>(*v) > max) {
      fail(std::string(key) + " out of range");
      return 0;
    }
    return static_cast<uint64_t>(*v);
  }
  std::string text(const JsonNode& object, std::string_view key) {
    const JsonNode* n = member(object, key, JsonNode::Kind::String);
    return n != nullptr ? n->string() : std::string();
  }
  void fail(std::string why) {
    if (problem_.empty()) problem_ = std::move(why);
  }
  const JsonNode& root() const { return root_; }
  const std::string& problem() const { return problem_; }

 private:
  const JsonNode& root_;
  std::string problem_;
};

}  // namespace

Expected<std::optional<analysis::GoroutineLeaks>> readGoroutineLeaks(const IndexFile& index,
                                                                     size_t goroutine_count) {
  if (!index.has(kGoroutineLeaks)) return std::optional<analysis::GoroutineLeaks>();
  GOHEAP_TRY(std::span<const uint8_t> bytes, index.bytes(kGoroutineLeaks));
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Expected<JsonNode> json = readJson(text);
  if (!json) return Error("the goroutine leaks: " + json.error().message());
  if (!json->isObject()) return Error("the goroutine leaks: not an object");
  LeaksReader r(*json);
  analysis::GoroutineLeaks leaks;
  leaks.problem = r.text(r.root(), "problem");
  leaks.layout_source = r.text(r.root(), "layout_source");
  const uint64_t records = r.number(r.root(), "records", goroutine_count);
  // An analysis that could not run marks no record; one that ran marks
  // every record of this heap.
  if (r.problem().empty() && records != 0 && records != goroutine_count) {
    r.fail("records of another heap");
  }
  leaks.leaked.assign(records, 0);
  if (const JsonNode* leaked = r.member(r.root(), "leaked", JsonNode::Kind::Array)) {
    for (const JsonNode& n : leaked->array()) {
      const std::optional<int64_t> record = n.isNumber() ? n.integer() : std::nullopt;
      if (!record || *record < 0 || static_cast<uint64_t>(*record) >= records) {
        r.fail("a leaked record out of range");
        break;
      }
      leaks.leaked[static_cast<size_t>(*record)] = 1;
      leaks.leaked_count++;
    }
  }
  leaks.leaked_retained = r.number(r.root(), "leaked_retained", UINT64_MAX >> 1);
  leaks.unlinked_sync_waits =
      static_cast<uint32_t>(r.number(r.root(), "unlinked_sync_waits", UINT32_MAX));
  if (const JsonNode* b = r.member(r.root(), "main_in_select_forever", JsonNode::Kind::Bool)) {
    leaks.main_in_select_forever = b->boolean();
  }
  if (const JsonNode* reasons = r.member(r.root(), "not_leaked_because", JsonNode::Kind::Array)) {
    for (const JsonNode& n : reasons->array()) {
      if (!n.isObject()) {
        r.fail("a reason that is not an object");
        break;
      }
      const uint64_t record = r.number(n, "record", records == 0 ? 0 : records - 1);
      leaks.not_leaked_because.emplace_back(static_cast<uint32_t>(record), r.text(n, "why"));
    }
  }
  if (!r.problem().empty()) return Error("the goroutine leaks: " + r.problem());
  return std::optional<analysis::GoroutineLeaks>(std::move(leaks));
}

}  // namespace goheap::cache
