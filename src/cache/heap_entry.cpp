#include "cache/heap_entry.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cache/entry_description.h"
#include "cache/leaks_index.h"
#include "cache/model_index.h"
#include "cache/snapshot_index.h"
#include "util/version.h"

namespace goheap::cache {

namespace {

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

}  // namespace

std::optional<HeapEntry> HeapEntry::of(const std::string& heap_path, const std::string& exe_path,
                                       const bin::Binary* executable, const CacheSettings& settings,
                                       Sink& sink) {
  // Only a regular file can be told apart later (and opening a FIFO to
  // fingerprint it would block, or consume it).
  std::error_code ec;
  if (heap_path.empty() || !std::filesystem::is_regular_file(heap_path, ec)) return std::nullopt;
  CacheDirectory directory = CacheDirectory::open(settings.directory, settings.size_bytes);
  if (std::optional<std::string> why = directory.takeWarning()) sink.warning(*why);
  if (!directory.usable()) return std::nullopt;
  KeyInputs inputs;
  Expected<FileFingerprint> heap = fingerprintOf(heap_path);
  if (!heap) return std::nullopt;
  inputs.heap = *heap;
  if (!exe_path.empty()) {
    if (executable == nullptr) return std::nullopt;
    inputs.executable = fingerprintOf(*executable);
  }
  inputs.options = settings.key_options;
  return HeapEntry(std::move(directory), computeKey(inputs), heap_path, heap->identity.mtime_ns,
                   exe_path, std::max(1u, settings.threads));
}

void HeapEntry::refuse(const Error& why, Sink& sink) {
  sink.warning("ignoring the index cache entry " + directory_.entryPath(key_) + " (" +
               why.message() + "); computing it again");
  directory_.remove(key_);
  index_ = nullptr;
}

bool HeapEntry::lookUp(Sink& sink) {
  if (!looked_up_) {
    looked_up_ = true;
    if (std::optional<std::string> path = directory_.lookup(key_)) {
      sink.beginPhase("read index cache", 0);
      Expected<std::shared_ptr<const IndexFile>> index = IndexFile::open(*path, key_, threads_);
      sink.endPhase();
      if (index) {
        index_ = index.take();
      } else {
        refuse(index.error(), sink);
      }
    }
  }
  return index_ != nullptr;
}

bool HeapEntry::hasModel() const {
  return index_ != nullptr && cache::hasModel(*index_);
}

std::optional<model::HeapModel> HeapEntry::restoreModel(MappedFile file, Sink& sink) {
  if (!hasModel()) return std::nullopt;
  Expected<model::HeapModel> model = readModelSections(*index_, std::move(file), threads_);
  if (!model) {
    refuse(model.error(), sink);
    return std::nullopt;
  }
  return model.take();
}

std::optional<Restored> HeapEntry::restore(model::HeapModel& model, bool model_from_entry,
                                           const analysis::LoadOptions& load, Sink& sink) {
  if (index_ == nullptr) return std::nullopt;
  Expected<analysis::ComputedParts> parts = readSnapshotSections(*index_);
  if (!parts) {
    refuse(parts.error(), sink);
    return std::nullopt;
  }
  Expected<std::optional<analysis::GoroutineLeaks>> leaks =
      readGoroutineLeaks(*index_, model.goroutines.size());
  if (!leaks) {
    refuse(leaks.error(), sink);
    return std::nullopt;
  }
  Expected<std::unique_ptr<analysis::Snapshot>> snapshot =
      analysis::restoreSnapshot(model, parts.take(), load, model_from_entry, sink);
  if (!snapshot) {
    refuse(snapshot.error(), sink);
    return std::nullopt;
  }
  return Restored{snapshot.take(), index_, leaks.take()};
}

Status HeapEntry::store(const analysis::Snapshot& s,
                        const std::function<const analysis::GoroutineLeaks&()>& leaks) {
  IndexWriter writer;
  addSnapshotSections(analysis::computedPartsOf(s), writer);
  addGoroutineLeaks(leaks, writer);
  addModelSections(s.model, writer);
  EntryDescription description;
  description.input_path = absolutePath(heap_path_);
  description.input_size = s.model.file().size();
  description.input_mtime_ns = heap_mtime_ns_;
  if (!exe_path_.empty()) description.exe_path = absolutePath(exe_path_);
  description.goheap_version = std::string(goheapVersion());
  description.created_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  writer.setDescription(description);
  return directory_.store(key_, writer);
}

}  // namespace goheap::cache
