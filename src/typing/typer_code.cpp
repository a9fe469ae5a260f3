// Typer's seeds from a stripped executable's code: what it stores into
// globals, the stack slots it fills, the types its allocation sites pass
// the allocator, global strings, channels (typer.h).
#include "typing/typer.h"

namespace goheap::typing {

void Typer::seedGlobalsFromCode() {
  if (!dw_.globals().empty()) return;  // the symbols typed them
  // The global words pointing at objects nothing has typed.
  const uint64_t bias = exe_.loadBias();
  std::vector<uint64_t> wanted, slots;  // link-time; run-time
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const uint8_t* bytes = d_.bytes(seg->contents).data();
    d_.forEachSlot(seg->layout, [&](uint64_t off) {
      if (off + ptr() > seg->contents.size) return;
      slots.push_back(seg->addr + off);
      const NodeId o = objectAt(words_.read(bytes + off));
      // Untyped, or an array whose count a malloc header left to guess.
      const bool open = o != kNoNode && (of(o).form == TypeForm::None || of(o).count_guessed != 0);
      if (open) wanted.push_back(seg->addr + off - bias);
    });
  }
  if (wanted.empty()) return;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::sort(slots.begin(), slots.end());
  const std::vector<bin::GlobalStore> seen = bin::findGlobalStores(exe_.binary(), wanted);

  // What each sighting says of the object the global points at: one t, an
  // array of t, or (a map or chan) the global's own value is a t; or (a
  // method's receiver) the global is a t, a struct.
  enum class How : uint8_t { Object, Array, Direct, Global };
  auto claimOf = [&](const bin::GlobalStore& g) -> std::optional<std::pair<TypeId, How>> {
    if (g.what == bin::StoredValue::Receiver) {
      const TypeId t = dw_.typeByName(g.type_name);
      if (t == kNoType || !hasPointers(t)) return std::nullopt;
      return std::pair{t, How::Global};
    }
    const TypeId t = typeAtRuntimeAddress(g.type + bias);
    // Generic code compiled for a shape names the shape, not a value's type.
    if (t == kNoType || isShapeType(dw_.type(t).name)) {
      return std::nullopt;
    }
    switch (g.what) {
      case bin::StoredValue::NewObject:
        return std::pair{t, How::Object};
      case bin::StoredValue::NewArray:
        return std::pair{t, How::Array};
      case bin::StoredValue::Receiver:
        return std::nullopt;
      case bin::StoredValue::Value: {
        const GoKind k = kindOf(t);
        if (k == GoKind::Map || k == GoKind::Chan) return std::pair{t, How::Direct};
        const TypeId r = dw_.resolve(t);
        if (k == GoKind::Pointer && r != kNoType && dw_.type(r).elem != kNoType) {
          return std::pair{dw_.type(r).elem, How::Object};
        }
        return std::nullopt;
      }
    }
    return std::nullopt;
  };
  const Memory segments[] = {{d_.bytes(d_.data.contents).data(),
                              d_.data.addr,
                              d_.data.present ? d_.data.contents.size : 0,
                              nullptr,
                              {}},
                             {d_.bytes(d_.bss.contents).data(),
                              d_.bss.addr,
                              d_.bss.present ? d_.bss.contents.size : 0,
                              nullptr,
                              {}}};
  evidence_ = TypeEvidence::Inferred;
  for (size_t i = 0, j = 0; i < seen.size(); i = j) {
    // Every sighting of a global must say the same. A slice that one
    // sighting grows (an array of T) and another fills with a composite
    // literal (one [N]T) says the same: an array of T.
    std::vector<std::optional<std::pair<TypeId, How>>> claims;
    for (j = i; j < seen.size() && seen[j].global == seen[i].global; j++) {
      claims.push_back(claimOf(seen[j]));
    }
    for (const auto& grown : claims) {
      if (!grown || grown->second != How::Array) continue;
      for (auto& c : claims) {
        if (!c || c->second != How::Object || kindOf(c->first) != GoKind::Array) continue;
        const TypeId r = dw_.resolve(c->first);
        if (r != kNoType && dw_.resolve(dw_.type(r).elem) == dw_.resolve(grown->first)) {
          c = grown;
        }
      }
    }
    const auto claim = claims.front();
    const bool agree = claim.has_value() && std::all_of(claims.begin(), claims.end(),
                                                        [&](const auto& c) { return c == claim; });
    if (!agree) continue;
    const uint64_t addr = seen[i].global + bias;
    const Memory* m = nullptr;
    for (const Memory& s : segments) {
      if (readable(s, addr, ptr())) m = &s;
    }
    if (m == nullptr) continue;
    const auto [t, how] = *claim;
    if (how == How::Global) {
      // The global's pointer words (its GC mask) must be t's.
      std::vector<uint64_t> words;
      pointerWords(t, 0, 0, words);
      const bool fits =
          readable(*m, addr, sizeOf(t)) && std::all_of(words.begin(), words.end(), [&](uint64_t w) {
            return std::binary_search(slots.begin(), slots.end(), addr + w);
          });
      if (fits) scanValue(*m, addr, t, t, 0);
      continue;
    }
    const uint64_t target = pointerAt(*m, addr);
    const NodeId o = objectAt(target);
    if (o == kNoNode) continue;
    // An array a malloc header typed, its count guessed from the slot: the
    // slice's capacity says how many.
    const TypeAssignment& had = of(o);
    if (how == How::Array && had.form == TypeForm::Array && had.count_guessed != 0 &&
        target == d_.objects.addr[o] + had.data_offset &&
        dw_.resolve(had.layout) == dw_.resolve(t)) {
      const uint64_t cap = uintAt(*m, addr + 2 * ptr(), ptr());
      if (cap > 0 && cap <= had.count) assign(target, t, t, cap, TypeForm::Array);
      continue;
    }
    if (had.form != TypeForm::None || target != d_.objects.addr[o]) continue;
    if (how == How::Object) {
      if (fitsObject(o, t, 1)) assign(target, t, t, 0, TypeForm::Value);
    } else if (how == How::Array) {
      // A slice: its capacity two words on.
      const uint64_t cap = uintAt(*m, addr + 2 * ptr(), ptr());
      if (fitsObject(o, t, cap)) assign(target, t, t, cap, TypeForm::Array);
    } else {
      const TypeId r = dw_.resolve(t);
      const TypeId header = r == kNoType ? kNoType : dw_.type(r).elem;
      if (header != kNoType && fitsObject(o, header, 1)) scanValue(*m, addr, t, t, 0);
    }
  }
  evidence_ = TypeEvidence::Table;
}

const Memory* Typer::globalMemory(uint64_t addr) const {
  for (const Memory& m : segments_) {
    if (readable(m, addr, 1)) return &m;
  }
  return nullptr;
}

bool Typer::seedPointedGlobals() {
  std::vector<TypingState::GlobalTarget> targets;
  {
    std::lock_guard<std::mutex> lock(shared_.global_targets_lock);
    targets.swap(shared_.global_targets);
  }
  // In a fixed order, whichever thread found them first; each (address,
  // type) once, with its best evidence.
  std::sort(targets.begin(), targets.end());
  bool any = false;
  for (size_t i = 0; i < targets.size(); i++) {
    const TypingState::GlobalTarget& t = targets[i];
    if (i > 0 && targets[i - 1].addr == t.addr && targets[i - 1].type == t.type) continue;
    if (!scanned_globals_.emplace(t.addr, t.type).second) continue;
    const Memory* m = globalMemory(t.addr);
    if (m == nullptr || !readable(*m, t.addr, std::max<uint64_t>(sizeOf(t.type), 1))) continue;
    evidence_ = t.evidence;
    scanValue(*m, t.addr, t.type, t.type, 0);
    any = true;
  }
  evidence_ = TypeEvidence::Table;
  return any;
}

void Typer::assignAllocated(NodeId o, TypeId t, bin::Allocated what, std::optional<uint64_t> cap) {
  if (t == kNoType && what != bin::Allocated::StringBytes) return;
  // Generic code is compiled once per shape: a shape's descriptor there is
  // no value's type (the value's own comes from the dictionary at run time).
  if (t != kNoType && isShapeType(dw_.type(t).name)) return;
  const uint64_t addr = d_.objects.addr[o];
  switch (what) {
    case bin::Allocated::Object:
      if (fitsObject(o, t, 1)) assign(addr, t, t, 0, TypeForm::Value);
      return;
    case bin::Allocated::Array: {
      // With pointers, the mask's last word is in the last element;
      // without, the size class bounds the count.
      const uint64_t esize = sizeOf(t);
      if (esize == 0) return;
      uint64_t last = 0;
      d_.forEachObjectSlot(o, [&](uint64_t off) { last = std::max(last, off); });
      if (cap && fitsObject(o, t, *cap)) {
        assign(addr, t, t, *cap, TypeForm::Array);
        return;
      }
      const bool exact = hasPointers(t);
      const uint64_t n = exact ? last / esize + 1 : d_.objects.size[o] / esize;
      if (fitsObject(o, t, n)) assign(addr, t, t, n, TypeForm::Array, !exact);
      return;
    }
    case bin::Allocated::Header: {
      const TypeId r = dw_.resolve(t);
      const TypeId header = r == kNoType ? kNoType : dw_.type(r).elem;
      if (header != kNoType && fitsObject(o, header, 1))
        assign(addr, header, t, 0, TypeForm::Value);
      return;
    }
    case bin::Allocated::StringBytes:
      if (!holdsPointers(o)) assignWeak(addr, TypeForm::StringBytes);
      return;
  }
}

void Typer::seedFramesFromCode() {
  if (!dw_.functions().empty()) return;  // DWARF typed the frames
  const uint64_t bias = exe_.loadBias();
  // The frames by function, each function's code read once.
  std::map<const bin::Func*, std::vector<uint32_t>> frames_of;
  for (uint32_t i = 0; i < d_.frames.size(); i++) {
    const model::StackFrame& fr = d_.frames[i];
    if (fr.pc == fr.entry_pc || fr.layout == model::PointerLayouts::kNoPointers) continue;
    if (const bin::Func* f = exe_.functionAt(fr.pc)) frames_of[f].push_back(i);
  }
  evidence_ = TypeEvidence::Inferred;
  std::vector<uint64_t> pcs, live;
  for (const auto& [f, frames] : frames_of) {
    pcs.clear();
    for (uint32_t i : frames) pcs.push_back(d_.frames[i].pc - bias);
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
    const std::vector<bin::StackSlotValue> slots = bin::findStackSlotValues(exe_.binary(), *f, pcs);
    if (slots.empty()) continue;
    for (uint32_t i : frames) {
      const model::StackFrame& fr = d_.frames[i];
      live.clear();
      d_.forEachSlot(fr.layout, [&](uint64_t off) { live.push_back(off); });
      std::sort(live.begin(), live.end());
      const uint8_t* bytes = d_.bytes(fr.contents).data();
      for (const bin::StackSlotValue& v : slots) {
        if (v.return_pc != fr.pc - bias || v.sp_offset < 0) continue;
        const auto off = static_cast<uint64_t>(v.sp_offset);
        // Only a pointer word the stack map says is live.
        if (!std::binary_search(live.begin(), live.end(), off) || off + ptr() > fr.contents.size) {
          continue;
        }
        const uint64_t target = words_.read(bytes + off);
        const NodeId o = objectAt(target);
        if (o == kNoNode || target != d_.objects.addr[o] || of(o).form != TypeForm::None) continue;
        // A slice's capacity, when the frame holds its whole header.
        std::optional<uint64_t> cap;
        if (v.what == bin::Allocated::Array && off + 3 * ptr() <= fr.contents.size &&
            !std::binary_search(live.begin(), live.end(), off + 2 * ptr())) {
          cap = words_.read(bytes + off + 2 * ptr());
        }
        assignAllocated(o, typeAtRuntimeAddress(v.type + bias), v.what, cap);
        if (of(o).form != TypeForm::None) counts_.inferred_objects++;
      }
    }
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedAllocationSites() {
  if (d_.alloc_samples.empty()) return;
  std::unordered_map<uint64_t, const model::ProfileBucket*> buckets;
  for (const model::ProfileBucket& b : d_.buckets) buckets.emplace(b.id, &b);
  // Per function: its allocation calls, with where each is in the source:
  // the call's line, and the line of the return address itself, which a
  // stack's first frame names (runtime/heapdump.go's dumpmemprof steps
  // back from the return addresses of the frames after the first only).
  struct LineCall {
    bin::SourceFrame call_at, return_at;
    bin::AllocationCall call;
  };
  std::unordered_map<const bin::Func*, std::vector<LineCall>> calls_of;
  auto callsOf = [&](const bin::Func* f) -> const std::vector<LineCall>& {
    auto [it, fresh] = calls_of.try_emplace(f);
    if (!fresh) return it->second;
    for (const bin::AllocationCall& c : bin::findAllocationCalls(exe_.binary(), *f)) {
      Expected<std::vector<bin::SourceFrame>> call_at = exe_.binary().symbolize(c.return_pc);
      Expected<std::vector<bin::SourceFrame>> return_at = exe_.binary().symbolize(c.return_pc + 1);
      if (call_at && !call_at->empty() && return_at && !return_at->empty()) {
        it->second.push_back({call_at->front(), return_at->front(), c});
      }
    }
    return it->second;
  };
  const uint64_t bias = exe_.loadBias();
  evidence_ = TypeEvidence::AllocationSite;
  for (const model::AllocSample& sample : d_.alloc_samples) {
    const NodeId o = objectAt(sample.addr);
    if (o == kNoNode || sample.addr != d_.objects.addr[o] || of(o).form != TypeForm::None) continue;
    auto b = buckets.find(sample.bucket_id);
    if (b == buckets.end() || b->second->frame_count == 0) continue;
    // The site: the first frame outside the runtime. Go 1.26 and later
    // record the allocator's frames too: then the one before it is the
    // runtime function the site called. Before, the stack starts at the
    // site when the site called the allocator itself.
    const model::ProfileBucket& bucket = *b->second;
    auto frameAt = [&](uint32_t i) -> const model::ProfileFrame& {
      return d_.profile_frames[bucket.first_frame + i];
    };
    uint32_t site = 0;
    while (site < bucket.frame_count && frameAt(site).function.starts_with("runtime.")) site++;
    if (site == bucket.frame_count) continue;
    const std::string_view via = site > 0 ? frameAt(site - 1).function : std::string_view();
    const model::ProfileFrame& frame = frameAt(site);
    const bin::Func* f = exe_.functionNamed(frame.function);
    if (f == nullptr) continue;
    // The allocations at the frame's line (through the runtime function
    // the stack shows, when it shows one): they must all say the same.
    std::optional<bin::AllocationCall> call;
    bool agree = true;
    for (const LineCall& c : callsOf(f)) {
      const bin::SourceFrame& at = site == 0 ? c.return_at : c.call_at;
      if (at.line != static_cast<int64_t>(frame.line) || at.file != frame.file) continue;
      if (!via.empty() && c.call.callee != via) continue;
      if (call && (call->type != c.call.type || call->what != c.call.what)) agree = false;
      call = c.call;
    }
    if (!call || !agree) continue;
    const TypeId t = call->what == bin::Allocated::StringBytes
                         ? kNoType
                         : typeAtRuntimeAddress(call->type + bias);
    assignAllocated(o, t, call->what, std::nullopt);
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedGlobalStrings() {
  if (!dw_.globals().empty()) return;  // the symbols typed them
  const TypeId byte_type = dw_.typeByName("uint8");
  // Whether an object of `size` bytes is what allocating n bytes gives.
  constexpr uint64_t kPage = 8192;
  auto slotFor = [&](uint64_t n, uint64_t size) {
    if (n == 0 || n > size) return false;
    const uint64_t c = sizeClassOf(n);
    return c != 0 ? c == size : size - n < kPage;
  };
  evidence_ = TypeEvidence::Inferred;
  for (const model::Segment* seg : {&d_.data, &d_.bss}) {
    if (!seg->present) continue;
    const uint8_t* bytes = d_.bytes(seg->contents).data();
    std::vector<uint64_t> slots;
    d_.forEachSlot(seg->layout, [&](uint64_t off) { slots.push_back(off); });
    std::sort(slots.begin(), slots.end());
    auto isSlot = [&](uint64_t off) { return std::binary_search(slots.begin(), slots.end(), off); };
    for (const uint64_t off : slots) {
      if (off + 2 * ptr() > seg->contents.size || isSlot(off + ptr())) continue;
      const uint64_t data = words_.read(bytes + off);
      const NodeId o = objectAt(data);
      // Tiny blocks (16 bytes and less) pack several values: no guess.
      if (o == kNoNode || data != d_.objects.addr[o] || of(o).form != TypeForm::None ||
          holdsPointers(o) || d_.objects.size[o] <= 16) {
        continue;
      }
      const uint64_t size = d_.objects.size[o];
      const uint64_t len = words_.read(bytes + off + ptr());
      if (!slotFor(len, size)) continue;
      // A byte slice's capacity, which made the object.
      const bool has_cap = off + 3 * ptr() <= seg->contents.size && !isSlot(off + 2 * ptr());
      const uint64_t cap = has_cap ? words_.read(bytes + off + 2 * ptr()) : 0;
      if (cap >= len && slotFor(cap, size) && byte_type != kNoType) {
        assign(data, byte_type, byte_type, cap, TypeForm::Array);
      } else {
        assignWeak(data, TypeForm::StringBytes);
      }
      if (of(o).form != TypeForm::None) counts_.inferred_objects++;
    }
  }
  evidence_ = TypeEvidence::Table;
}

void Typer::seedChannels() {
  // chan T by T's name, for the bidirectional chans (what make creates),
  // and the fields every hchan<T> shares.
  std::unordered_map<std::string_view, TypeId> chan_of;
  TypeId hchan = kNoType;
  for (TypeId t = 0; t < dw_.types().size(); t++) {
    const bin::Type& ty = dw_.type(t);
    if (ty.kind != GoKind::Chan || !ty.name.starts_with("chan ") || ty.elem == kNoType) continue;
    const TypeId r = dw_.resolve(t);
    if (r == kNoType || dw_.type(r).tag != DwarfTag::Pointer || dw_.type(r).elem == kNoType) {
      continue;
    }
    chan_of.emplace(dw_.type(ty.elem).name, t);
    hchan = dw_.type(r).elem;
  }
  if (hchan == kNoType) return;
  const bin::Field* elemtype = dw_.fieldNamed(hchan, "elemtype");
  const bin::Field* elemsize = dw_.fieldNamed(hchan, "elemsize");
  const bin::Field* dataqsiz = dw_.fieldNamed(hchan, "dataqsiz");
  const bin::Field* qcount = dw_.fieldNamed(hchan, "qcount");
  const bin::Field* buf = dw_.fieldNamed(hchan, "buf");
  const uint64_t header = dw_.type(hchan).size;
  if (elemtype == nullptr || elemsize == nullptr || dataqsiz == nullptr || qcount == nullptr ||
      buf == nullptr || header == 0) {
    return;
  }
  evidence_ = TypeEvidence::Header;
  for (NodeId o = 0; o < heap_.objectCount(); o++) {
    const uint64_t size = d_.objects.size[o];
    if (size < header || of(o).form != TypeForm::None || d_.objects.isSpanMetadata(o)) continue;
    const uint64_t addr = d_.objects.addr[o];
    const Memory m{d_.objectData(o), addr, size, nullptr, {}};
    const TypeId elem = typeAtRuntimeAddress(uintAt(m, addr + elemtype->offset, ptr()));
    if (elem == kNoType) continue;
    const uint64_t esize = uintAt(m, addr + elemsize->offset, sizeOf(elemsize->type));
    const uint64_t n = uintAt(m, addr + dataqsiz->offset, sizeOf(dataqsiz->type));
    const uint64_t queued = uintAt(m, addr + qcount->offset, sizeOf(qcount->type));
    const uint64_t b = uintAt(m, addr + buf->offset, ptr());
    if (esize != sizeOf(elem) || queued > n) continue;
    // makechan: no buffer bytes point at the buf field itself; elements
    // without pointers follow the header in the same object; others are
    // an object of their own.
    const bool fits = n == 0 || esize == 0 ? b == addr + buf->offset
                      : hasPointers(elem)  ? b != 0 && objectAt(b) != o
                                           : b == addr + header && n * esize <= size - header;
    if (!fits) continue;
    auto it = chan_of.find(dw_.type(elem).name);
    if (it == chan_of.end()) continue;
    const TypeId layout = dw_.type(dw_.resolve(it->second)).elem;
    assign(addr, layout, it->second, 0, TypeForm::Value);
  }
  evidence_ = TypeEvidence::Table;
}

}  // namespace goheap::typing
