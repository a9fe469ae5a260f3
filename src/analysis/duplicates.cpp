#include "analysis/duplicates.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "analysis/headers.h"
#include "typing/heap_types.h"
#include "util/enum_names.h"
#include "util/large_vector.h"
#include "util/parallel.h"

namespace goheap::analysis {

namespace {

// One copy of some contents: `len` bytes at `start` in object `node`,
// within the class `cls` (a type or group; kinds never mix).
struct Entry {
  uint64_t cls = 0;  // kind in the top byte
  uint64_t len = 0;
  uint64_t hash = 0;
  NodeId node = kNoNode;
  uint64_t start = 0;       // offset of the contents in the object
  NodeId holder = kNoNode;  // typed strings and []byte: the header's holder
  uint64_t slot = 0;        // and the header's address
};

uint64_t classKey(DupKind kind, uint64_t id) {
  return uint64_t{static_cast<uint8_t>(kind)} << 56 | (id & ((uint64_t{1} << 56) - 1));
}
DupKind kindOf(uint64_t cls) {
  return static_cast<DupKind>(cls >> 56);
}

bool pointerFree(const model::HeapModel& d, NodeId o) {
  bool any = false;
  d.forEachObjectSlot(o, [&](uint64_t) { any = true; });
  return !any;
}

}  // namespace

constexpr std::array<std::string_view, 3> kDupKindNames = {"string", "bytes", "object"};
static_assert(namesEveryValue(kDupKindNames, DupKind::Object));

std::string_view dupKindName(DupKind k) {
  return enumName(k, kDupKindNames, "?");
}

std::string quotePreview(const uint8_t* p, uint64_t n, size_t max) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "\"";
  uint64_t i = 0;
  for (; i < n && out.size() < max + 1; i++) {
    const uint8_t c = p[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  out += '"';
  if (i < n) out += "...";
  return out;
}

Duplicates findDuplicates(const Snapshot& s, const DupOptions& options,
                          const std::vector<Header>* headers) {
  std::vector<Header> headers_found;
  if (headers == nullptr && s.types != nullptr && (options.strings || options.bytes)) {
    headers_found = findHeaders(s, options.threads);
    headers = &headers_found;
  }
  Duplicates out;
  const model::HeapModel& d = s.model;
  const uint32_t n_objects = s.heap.objectCount();
  std::vector<Entry> entries;  // strings and []byte, through their headers
  auto contents = [&](const Entry& e) { return d.objectData(e.node) + e.start; };

  out.typed = s.types != nullptr;
  typing::Grouping groups;  // without types: the classes, and the groups' names
  if (out.typed) {
    if (options.strings || options.bytes) {
      // Hashing is most of the work: the headers in contiguous ranges, one
      // per thread, their entries in order.
      std::vector<std::vector<Entry>> found(std::max(1u, options.threads));
      forEachRange(headers->size(), options.threads, [&](unsigned part, size_t first, size_t last) {
        std::vector<Entry>& mine = found[part];
        for (size_t i = first; i < last; i++) {
          const Header& h = (*headers)[i];
          if (h.kind == HeaderKind::Map || !h.byte_elems || h.len == 0) continue;
          if (h.holder != kNoNode && !s.reachable(h.holder)) continue;
          const DupKind kind = h.kind == HeaderKind::String ? DupKind::String : DupKind::Bytes;
          if ((kind == DupKind::String && !options.strings) ||
              (kind == DupKind::Bytes && !options.bytes)) {
            continue;
          }
          const NodeId o = s.heap.addresses().find(h.data);
          if (o == kNoNode || !s.reachable(o)) continue;
          const uint64_t start = h.data - d.objects.addr[o];
          if (h.len > d.objects.size[o] - start) continue;  // a stale or corrupt header
          // Copies are compared within one object size: a 64-byte string
          // cut from a longer one is not a copy of the same cost.
          Entry e{classKey(kind, d.objects.size[o]), h.len, 0, o, start, h.holder, h.slot_address};
          e.hash = hashBytes(contents(e), e.len);
          pushBackLarge(mine, e);
        }
      });
      entries = joinLarge(found);
    }
  } else {
    groups = s.namer().group(typing::GroupKind::Name);
  }

  // Candidates share class, length and hash; equal bytes make a group.
  auto same_key = [](const Entry& a, const Entry& b) {
    return a.cls == b.cls && a.len == b.len && a.hash == b.hash;
  };
  // Whole objects are the bulk (every typed value, or every object without
  // types) and nearly all are unique: they go into `by_key` as their node
  // alone, and become entries only when their key comes twice. Sorting
  // 16-byte (key, index) pairs, not whole entries, is what keeps this fast
  // on a heap of millions of objects.
  struct Ordered {
    uint64_t key;    // the hash mixed with class and length: equal entries, equal keys
    uint64_t index;  // into `entries`, or kObject | the node of a whole object
  };
  constexpr uint64_t kObject = uint64_t{1} << 63;
  auto keyOf = [](const Entry& e) {
    return e.hash ^ (e.cls * 0x9e3779b97f4a7c15ULL) ^ (e.len * 0xc2b2ae3d27d4eb4fULL);
  };
  std::vector<Ordered> by_key;
  reserveLarge(by_key, entries.size() + n_objects);
  for (size_t i = 0; i < entries.size(); i++) by_key.push_back({keyOf(entries[i]), i});
  // The class of a whole object, or nothing when it is not compared.
  auto objectClass = [&](NodeId o) -> std::optional<uint64_t> {
    if (!s.reachable(o) || d.objects.size[o] == 0) return std::nullopt;
    if (out.typed) {
      if (!options.objects || s.types->form(o) != typing::TypeForm::Value) return std::nullopt;
      return classKey(DupKind::Object, s.types->layout(o));
    }
    const DupKind kind = pointerFree(d, o) ? DupKind::Bytes : DupKind::Object;
    if (kind == DupKind::Bytes && !options.strings && !options.bytes) return std::nullopt;
    if (kind == DupKind::Object && !options.objects) return std::nullopt;
    return classKey(kind, groups.group_of[o]);
  };
  auto objectEntry = [&](NodeId o, uint64_t cls) {
    Entry e{cls, d.objects.size[o], 0, o, 0, kNoNode, 0};
    e.hash = hashBytes(contents(e), e.len);
    return e;
  };
  // The objects in contiguous ranges, one per thread; each range's keys go
  // into its own stretch of by_key, and the stretches are then closed up.
  const size_t objects_at = by_key.size();
  by_key.resize(objects_at + n_objects);
  std::vector<size_t> filled(std::max(1u, options.threads), 0);
  forEachRange(n_objects, options.threads, [&](unsigned part, size_t first, size_t last) {
    Ordered* const begin = by_key.data() + objects_at + first;
    Ordered* next = begin;
    for (auto o = static_cast<NodeId>(first); o < last; o++) {
      if (const std::optional<uint64_t> cls = objectClass(o)) {
        *next++ = {keyOf(objectEntry(o, *cls)), kObject | o};
      }
    }
    filled[part] = static_cast<size_t>(next - begin);
  });
  size_t end = objects_at;
  for (unsigned part = 0; part < filled.size(); part++) {
    const size_t first = objects_at + n_objects * part / filled.size();
    std::copy(by_key.begin() + first, by_key.begin() + first + filled[part], by_key.begin() + end);
    end += filled[part];
  }
  by_key.resize(end);
  // (key, index) is a total order: the same result on any number of threads.
  sortOnThreads(
      by_key.begin(), by_key.end(),
      [](const Ordered& a, const Ordered& b) {
        return a.key != b.key ? a.key < b.key : a.index < b.index;
      },
      options.threads);
  std::vector<Entry> repeated;
  for (size_t i = 0; i < by_key.size();) {
    size_t j = i + 1;
    while (j < by_key.size() && by_key[j].key == by_key[i].key) j++;
    if (j - i >= 2) {
      for (size_t k = i; k < j; k++) {
        const uint64_t index = by_key[k].index;
        if ((index & kObject) == 0) {
          pushBackLarge(repeated, entries[index]);
        } else {
          const auto o = static_cast<NodeId>(index & ~kObject);
          pushBackLarge(repeated, objectEntry(o, *objectClass(o)));
        }
      }
    }
    i = j;
  }
  std::vector<Entry>().swap(entries);
  std::vector<Ordered>().swap(by_key);
  // Keys can collide across classes and lengths: sort what is left by the
  // whole key so that each run is one class, length and hash.
  // A total order (one header is one slot): the same on any number of threads.
  sortOnThreads(
      repeated.begin(), repeated.end(),
      [](const Entry& a, const Entry& b) {
        if (a.cls != b.cls) return a.cls < b.cls;
        if (a.len != b.len) return a.len < b.len;
        if (a.hash != b.hash) return a.hash < b.hash;
        if (a.node != b.node) return a.node < b.node;
        if (a.start != b.start) return a.start < b.start;
        if (a.holder != b.holder) return a.holder < b.holder;
        return a.slot < b.slot;
      },
      options.threads);
  entries.swap(repeated);

  struct Found {
    size_t first, last;  // the run in `entries` (same key, equal bytes to `first`)
    uint64_t wasted;
  };
  std::vector<Found> found;
  std::vector<Entry> run, rest;
  std::vector<Entry> grouped;  // the runs, equal bytes together
  reserveLarge(grouped, entries.size());
  for (size_t i = 0; i < entries.size();) {
    size_t j = i + 1;
    while (j < entries.size() && same_key(entries[i], entries[j])) j++;
    if (j - i < 2) {
      i = j;
      continue;
    }
    // Split the run into classes of equal bytes (almost always one).
    rest.assign(entries.begin() + static_cast<ptrdiff_t>(i),
                entries.begin() + static_cast<ptrdiff_t>(j));
    while (rest.size() >= 2) {
      run.clear();
      std::vector<Entry> others;
      const uint8_t* ref = contents(rest[0]);
      for (const Entry& e : rest) {
        if (std::memcmp(contents(e), ref, e.len) == 0) {
          run.push_back(e);
        } else {
          others.push_back(e);
        }
      }
      // Distinct objects: several headers may share one.
      uint64_t copies = 0, total = 0, smallest = UINT64_MAX;
      for (size_t k = 0; k < run.size(); k++) {
        if (k > 0 && run[k].node == run[k - 1].node) continue;
        copies++;
        total += d.objects.size[run[k].node];
        smallest = std::min<uint64_t>(smallest, d.objects.size[run[k].node]);
      }
      if (copies >= 2) {
        const uint64_t wasted = total - smallest;
        DupTotals& tot = out.totals[static_cast<size_t>(kindOf(run[0].cls))];
        tot.groups++;
        tot.copies += copies;
        tot.wasted += wasted;
        if (wasted >= options.min_wasted) {
          found.push_back({grouped.size(), grouped.size() + run.size(), wasted});
          grouped.insert(grouped.end(), run.begin(), run.end());
        }
      }
      rest.swap(others);
    }
    i = j;
  }
  out.matching_groups = found.size();
  std::sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
    if (a.wasted != b.wasted) return a.wasted > b.wasted;
    return grouped[a.first].node < grouped[b.first].node;
  });
  if (options.limit != 0 && found.size() > options.limit) found.resize(options.limit);

  for (const Found& f : found) {
    DupGroup g;
    const Entry& first = grouped[f.first];
    g.kind = kindOf(first.cls);
    g.length = first.len;
    g.preview = quotePreview(contents(first), first.len);
    struct Held {
      NodeId holder;
      uint64_t slot;  // 0: to be found, pointing into `object`
      NodeId object;
      bool operator<(const Held& o) const { return holder < o.holder; }
    };
    std::vector<Held> holders;
    for (size_t k = f.first; k < f.last; k++) {
      const Entry& e = grouped[k];
      if (g.objects.empty() || g.objects.back() != e.node) g.objects.push_back(e.node);
      if (e.holder != kNoNode) holders.push_back({e.holder, e.slot, e.node});
    }
    g.copies = g.objects.size();
    uint64_t smallest = UINT64_MAX;
    for (NodeId o : g.objects) {
      g.total += d.objects.size[o];
      smallest = std::min<uint64_t>(smallest, d.objects.size[o]);
    }
    g.size = smallest;
    g.wasted = f.wasted;
    if (g.kind == DupKind::String) {
      g.name = "string";
    } else if (g.kind == DupKind::Bytes && out.typed) {
      g.name = "[]byte";
    } else if (out.typed) {
      g.name = s.namer().typeName(first.node);
    } else {
      g.name = groups.names[groups.group_of[first.node]];
    }
    if (holders.empty()) {  // from the graph: every reachable referrer
      for (NodeId o : g.objects) {
        for (NodeId p : s.heap.predecessors().neighbors(o)) {
          if (p != s.heap.superRoot() && s.reachable(p)) holders.push_back({p, 0, o});
        }
      }
    }
    std::stable_sort(holders.begin(), holders.end());
    std::vector<DupHolder> tally;
    std::vector<const Held*> where;
    for (size_t k = 0; k < holders.size();) {
      size_t m = k;
      while (m < holders.size() && holders[m].holder == holders[k].holder) m++;
      tally.push_back({holders[k].holder, {}, m - k});
      where.push_back(&holders[k]);
      k = m;
    }
    std::vector<size_t> order(tally.size());
    for (size_t k = 0; k < order.size(); k++) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (tally[a].count != tally[b].count) return tally[a].count > tally[b].count;
      return tally[a].node < tally[b].node;
    });
    for (size_t k = 0; k < order.size() && k < options.holders; k++) {
      DupHolder h = tally[order[k]];
      const Held& at = *where[order[k]];
      const uint64_t slot = at.slot != 0 ? at.slot : slotPointingInto(s, h.node, at.object);
      h.name = describeHolder(s, h.node, slot);
      g.holders.push_back(std::move(h));
    }
    std::sort(g.objects.begin(), g.objects.end(),
              [&](NodeId a, NodeId b) { return d.objects.addr[a] < d.objects.addr[b]; });
    out.groups.push_back(std::move(g));
  }
  return out;
}

}  // namespace goheap::analysis
