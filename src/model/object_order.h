// Puts a dump's objects in address order, the order in which the graph gives
// them ids. The runtime writes them span by span, which is not address order.
#pragma once

#include "model/heap_model.h"

namespace goheap::model {

// Permutes every object column. Radix sort on the address; a no-op when the
// objects are already sorted.
void sortObjectsByAddress(HeapModel& model);

// Stores the objects' addresses and sizes in 4 bytes each, and their
// layouts in 2, where they allow it (util/packed_column.h). For once the columns are complete and
// sorted: appending or sorting unpacks them again.
void packObjectColumns(HeapModel& model);

}  // namespace goheap::model
