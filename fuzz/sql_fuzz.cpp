// libFuzzer entry for goheap sql's tables: each input is SQL, run read-only
// over examples/leaky.dump with its executable (loaded once), with a short
// time limit, a row limit and a memory limit. The SQL is the attacker's:
// whatever constraints, arguments and joins it asks of the virtual tables
// (ids out of range, negative depths, text where numbers go), they must
// answer or fail with an error, never read out of bounds.
//
// GOHEAP_SOURCE_DIR (the repository) comes from the build.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "query/open.h"
#include "sql/database.h"

namespace {

struct Loaded {
  std::shared_ptr<const goheap::query::Session> session;
  std::unique_ptr<goheap::sql::SqlHeap> heap;
  std::unique_ptr<goheap::sql::HeapDatabase> db;
};
Loaded* loaded = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string dir = std::string(GOHEAP_SOURCE_DIR) + "/examples/";
  goheap::NullSink quiet;
  goheap::query::OpenOptions options;
  options.use_cache = false;
  auto session = goheap::query::open(
      goheap::query::Source::fromArgument(dir + "leaky.dump", dir + "leaky-linux-amd64"), quiet,
      options);
  if (!session) {
    std::fprintf(stderr, "sql_fuzz: %s\n", session.error().message().c_str());
    std::abort();
  }
  loaded = new Loaded{*session, nullptr, nullptr};
  loaded->heap = std::make_unique<goheap::sql::SqlHeap>(loaded->session);
  // The same heap as old too: the base's tables and functions are fuzzed.
  auto db = goheap::sql::HeapDatabase::open(*loaded->heap, loaded->heap.get());
  if (!db) {
    std::fprintf(stderr, "sql_fuzz: %s\n", db.error().message().c_str());
    std::abort();
  }
  loaded->db = db.take();
  goheap::sql::limitSqlMemory(64 << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto results = loaded->db->run(text, {200, 0.2});
  (void)results;
  return 0;
}
