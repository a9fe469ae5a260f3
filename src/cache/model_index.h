// The model a heap dump's reader made (model::HeapModel: objects, pointer
// layouts, goroutines, frames, types, roots, memstats, the profile), in an
// index file, and back, so that a second open of the same dump neither
// parses it nor sorts its objects.
//
// Only a heap dump's model is kept: all its bytes and strings are in one
// region, the dump file itself, so a string is kept as its offset and
// length in the file, and an object's contents as the offset they had. The
// entry's key covers the file (cache_key.h), so the offsets point at the
// same bytes when the file is mapped again. A core's model, whose strings
// and bytes come from several places, is read anew on every open.
//
// The objects are kept as the Snapshot has them: sorted by address, with
// their span metadata marked. The go1.3 reader's own columns (type_addr,
// type_index, kind), which nothing after the reader reads, are not kept.
#pragma once

#include "cache/index_file.h"
#include "model/heap_model.h"
#include "util/error.h"
#include "util/mapped_file.h"

namespace goheap::cache {

// Whether addModelSections can keep `model`: a heap dump's, one region.
bool modelIsCacheable(const model::HeapModel& model);

// Adds `model`'s sections to `writer` (the big columns written from where
// they are: keep `model` alive until the writer has written). A model that
// is not cacheable, or a string of it outside its file, adds nothing.
void addModelSections(const model::HeapModel& model, IndexWriter& writer);

// Whether `index` holds a model.
bool hasModel(const IndexFile& index);

// The model in `index`, over `file` (the dump file, mapped again): every
// big column a view of the index (hold the index while the model lives).
// Everything that indexes one table by another, or the file by an offset,
// is checked first: a model that does not fit the file or itself is an
// Error, never a model that reads out of bounds.
// Its objects are checked on `threads` threads.
Expected<model::HeapModel> readModelSections(const IndexFile& index, MappedFile file,
                                             unsigned threads = 1);

}  // namespace goheap::cache
