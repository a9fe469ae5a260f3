#include "analysis/object_info.h"

#include "analysis/slots.h"

namespace goheap::analysis {

ObjectInfo objectInfo(const Snapshot& s, NodeId o, size_t max_referrers, size_t max_fields) {
  ObjectInfo info;
  info.label = labelNode(s, o);
  info.size = s.model.objects.size[o];
  info.reachable = s.reachable(o);
  info.runtime_metadata = s.isRuntimeMetadata(o);
  info.retained = info.reachable ? s.retained[o] : 0;
  info.idom = labelNode(s, s.dom.idom[o]);
  info.shape = s.namer().shapeName(o);
  forEachNodeSlot(s, o, [&](uint64_t off, uint64_t value, uint64_t slot_addr) {
    if (value == 0) return;
    Reference r;
    r.offset = off;
    r.slot_address = slot_addr;
    r.value = value;
    r.field = slotField(s, o, off, slot_addr);
    NodeId t = s.heap.addresses().find(value);
    if (t == kNoNode) {
      r.target.kind = "non-heap";
    } else {
      r.target = labelNode(s, t);
    }
    info.pointers.push_back(std::move(r));
  });
  if (s.types && s.types->typed(o)) {
    info.type = s.namer().typeName(o);
    info.fields =
        typing::decodeFields(s.model, s.heap, *s.types, *s.exe->typeTable(), *s.exe, o, max_fields);
  }
  auto preds = s.heap.predecessors().neighbors(o);
  info.referrer_count = preds.size();
  for (NodeId p : preds) {
    if (info.referrers.size() >= max_referrers) break;
    Reference r;
    r.target = labelNode(s, p);
    if (auto slot = slotPointingTo(s, p, o)) {
      r.offset = slot->first;
      r.slot_address = slot->second;
      r.target = labelHolder(s, p, slot->second);
      r.field = slotField(s, p, slot->first, slot->second);
    }
    info.referrers.push_back(std::move(r));
  }
  int64_t b = s.namer().bucketOf(o);
  if (b >= 0) {
    const model::ProfileBucket& bucket = s.model.buckets[static_cast<size_t>(b)];
    // Since Go 1.26 the stack starts in the allocator (runtime.mallocgc,
    // runtime.newobject); the stack shown starts where the program
    // allocated, as the site's name does, unless it is all runtime.
    uint32_t first = 0;
    while (first < bucket.frame_count &&
           typing::isRuntimeFunction(s.model.profile_frames[bucket.first_frame + first].function)) {
      first++;
    }
    if (first == bucket.frame_count) first = 0;
    for (uint32_t i = first; i < bucket.frame_count; i++) {
      const model::ProfileFrame& pf = s.model.profile_frames[bucket.first_frame + i];
      AllocFrame f{pf.function, pf.file, pf.line, 0};
      if (s.exe) {
        f.function = s.exe->inlinedName(pf.function, pf.file, static_cast<int64_t>(pf.line));
        f.inlined = f.function != pf.function;
        if (const bin::Func* fn = s.exe->functionNamed(f.function)) {
          f.function_start_line = s.exe->binary().startLine(*fn);
        }
      }
      info.alloc_stack.push_back(f);
    }
  }
  return info;
}

}  // namespace goheap::analysis
