// The goroutine leak analysis (analysis/goroutine_leaks.h) in the index
// cache: it marks the whole graph twice, which on a big heap costs more
// than the rest of a cache hit, so its result is kept with the entry and a
// hit answers `summary` and `goroutines` without marking again.
//
// One section of JSON (a small record: the leaked goroutines by record,
// the counts, the reasons some are not called leaked), read back strictly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/goroutine_leaks.h"
#include "cache/index_file.h"
#include "util/error.h"

namespace goheap::cache {

// The section's bytes for `leaks`.
std::vector<uint8_t> encodeGoroutineLeaks(const analysis::GoroutineLeaks& leaks);

// Adds the section to `writer`, made from what `leaks` returns once the
// writer has written the rest (IndexWriter::addLast): on a first open the
// analysis may still be running while the big columns are written.
void addGoroutineLeaks(std::function<const analysis::GoroutineLeaks&()> leaks, IndexWriter& writer);

// The leaks kept in `index`, for a heap of `goroutine_count` goroutine
// records; nothing when the entry has none (written before they were
// computed). An Error when the section does not read as one, or names a
// goroutine record past the heap's.
Expected<std::optional<analysis::GoroutineLeaks>> readGoroutineLeaks(const IndexFile& index,
                                                                     size_t goroutine_count);

}  // namespace goheap::cache
