// The index cache as one object per heap, in three steps: look the entry up
// (verified whole, once), restore a Snapshot (and, for a heap dump, its
// model) from it, or store a finished Snapshot in it. query::open asks it;
// what goes into an entry is snapshot_index.h's and model_index.h's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "analysis/goroutine_leaks.h"
#include "analysis/snapshot.h"
#include "bin/binary.h"
#include "cache/cache_directory.h"
#include "cache/cache_key.h"
#include "cache/index_file.h"
#include "model/heap_model.h"
#include "util/error.h"
#include "util/mapped_file.h"
#include "util/sink.h"

namespace goheap::cache {

// How the cache is used, and the load options that change what an entry
// holds.
struct CacheSettings {
  std::string directory;    // empty: $XDG_CACHE_HOME/goheap, else ~/.cache/goheap
  uint64_t size_bytes = 0;  // what the folder may hold at most
  unsigned threads = 1;     // for verifying an entry
  KeyOptions key_options;
};

// A Snapshot read from an entry, and the mapped entry its columns are views
// of: whoever keeps the Snapshot keeps `backing` as long.
struct Restored {
  std::unique_ptr<analysis::Snapshot> snapshot;
  std::shared_ptr<const void> backing;
  // The goroutine leak analysis of the heap, when the entry keeps it.
  std::optional<analysis::GoroutineLeaks> goroutine_leaks;
};

class HeapEntry {
 public:
  // The entry of the heap in the file `heap_path`, read with `executable`
  // (null when none was given: `exe_path` empty), or nothing when the heap
  // cannot be told apart later (not a regular file), the folder is not
  // usable (the sink is told why), or an executable was given but could not
  // be opened (an entry is not worth it).
  static std::optional<HeapEntry> of(const std::string& heap_path, const std::string& exe_path,
                                     const bin::Binary* executable, const CacheSettings& settings,
                                     Sink& sink);

  // Step 1: finds the entry and verifies it whole, once. False when there
  // is none, or it did not read (then it is refused: removed, with a
  // warning, to be written again).
  bool lookUp(Sink& sink);
  // The entry holds a heap dump's model too.
  bool hasModel() const;

  // Step 2: the model from the entry, over the dump `file`; nothing when it
  // does not read (the entry refused).
  std::optional<model::HeapModel> restoreModel(MappedFile file, Sink& sink);
  // The Snapshot of `model` from the entry; nothing when it does not fit
  // (the entry refused, `model` as it was). `model_from_entry`: the model
  // came from restoreModel, sorted already.
  std::optional<Restored> restore(model::HeapModel& model, bool model_from_entry,
                                  const analysis::LoadOptions& load, Sink& sink);

  // Step 3: writes what `s` computed (and its model, a heap dump's) as the
  // entry, with the goroutine leak analysis of it, which `leaks` returns
  // (asked for last, once the rest is written: it may still be computed
  // elsewhere). An Error, worded for a warning, when it was not stored.
  Status store(const analysis::Snapshot& s,
               const std::function<const analysis::GoroutineLeaks&()>& leaks);

 private:
  HeapEntry(CacheDirectory directory, Key key, std::string heap_path, int64_t heap_mtime_ns,
            std::string exe_path, unsigned threads)
      : directory_(std::move(directory)),
        key_(key),
        heap_path_(std::move(heap_path)),
        heap_mtime_ns_(heap_mtime_ns),
        exe_path_(std::move(exe_path)),
        threads_(threads) {}
  void refuse(const Error& why, Sink& sink);

  CacheDirectory directory_;
  Key key_;
  std::string heap_path_;
  int64_t heap_mtime_ns_ = 0;  // as the key saw it, for the entry's description
  std::string exe_path_;
  unsigned threads_ = 1;
  bool looked_up_ = false;
  std::shared_ptr<const IndexFile> index_;
};

}  // namespace goheap::cache
