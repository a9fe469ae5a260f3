// Puts a dump's objects in address order, the order in which the graph gives
// them ids. The runtime writes them span by span, which is not address order.
#pragma once

#include "dump/dump.h"

namespace goheap::dump {

// Permutes every object column. Radix sort on the address; a no-op when the
// objects are already sorted.
void sortObjectsByAddress(Dump& dump);

}  // namespace goheap::dump
