// Memory the program pays for and does not use: size-class rounding, the
// part of an array no slice can see, maps far emptier than their tables,
// and garbage still in the dump. What `goheap waste` lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/headers.h"
#include "analysis/snapshot.h"

namespace goheap::analysis {

// Typed objects of one type and slot size: the allocator rounds a value of
// type_size bytes up to its size class (the dump's object size).
struct RoundingRow {
  std::string type;
  uint64_t count = 0;
  uint64_t type_size = 0;  // of one value ([n]T: n * sizeof T)
  uint64_t slot_size = 0;  // the object's size in the dump
  // Go 1.22+: the malloc header before the value in objects over 512 bytes
  // that hold pointers, per object. Reported, not counted in `wasted`.
  uint64_t header = 0;
  uint64_t wasted = 0;  // count * (slot_size - header - type_size)
};

// A backing array reached only through slice headers, with the bytes none
// of them can see (object size - the union of [ptr, ptr+len*elem)).
struct HiddenArrayRow {
  NodeId object = kNoNode;
  std::string type;
  uint64_t size = 0;
  uint64_t visible = 0;
  uint64_t hidden = 0;
  uint64_t slices = 0;   // headers pointing into it
  std::string holder;    // where the first of them is
  bool flagged = false;  // hidden >= the threshold, or more than half the array and >= 512 B
};

// A map's fill against the storage it keeps.
struct MapRow {
  NodeId map = kNoNode;  // its header object
  std::string type;
  uint64_t len = 0;
  uint64_t capacity = 0;  // slots (8 per bucket or group)
  // Bytes of the header, buckets (Go 1.19-1.23: buckets and oldbuckets, not
  // overflow buckets) or directory, tables and groups (Go 1.24+); the keys'
  // and values' own objects are not counted.
  uint64_t storage = 0;
  std::string holder;
  bool sparse = false;  // len below a quarter of a capacity of 64 slots or more
};

struct GarbageRow {
  std::string name;
  std::string source;  // "type", "site", "shape", ...
  uint64_t count = 0, bytes = 0;
};

struct WasteOptions {
  size_t limit = 20;                 // rows per section (0: all)
  uint64_t hidden_threshold = 4096;  // flag arrays hiding this much
  unsigned threads = 2;              // for the scans; the answer is the same
};

struct Waste {
  bool typed = false;                 // rounding, slices and maps need types
  std::vector<RoundingRow> rounding;  // by wasted, rows with nothing wasted left out
  uint64_t rounding_objects = 0, rounding_wasted = 0, rounding_header = 0;
  uint64_t rounding_rows = 0;          // before the cut
  std::vector<HiddenArrayRow> hidden;  // by hidden bytes
  uint64_t hidden_arrays = 0, hidden_bytes = 0, hidden_flagged = 0;
  std::vector<MapRow> maps;  // sparse first, then by storage
  uint64_t map_count = 0, sparse_maps = 0, sparse_storage = 0;
  std::vector<GarbageRow> garbage;  // by bytes
  uint64_t garbage_groups = 0, garbage_objects = 0, garbage_bytes = 0;
};

// `headers`: findHeaders(s) when the caller keeps it (a server); else found here.
Waste findWaste(const Snapshot& s, const WasteOptions& options,
                const std::vector<Header>* headers = nullptr);

}  // namespace goheap::analysis
