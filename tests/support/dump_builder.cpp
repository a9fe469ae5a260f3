#include "support/dump_builder.h"

#include <cstdio>
#include <cstdlib>

namespace goheap::testsupport {

using dump::FieldKind;
using dump::FormatVersion;
using dump::Tag;

uint64_t fieldKindCode(FormatVersion version, FieldKind kind) {
  if (version == FormatVersion::Go13) {
    switch (kind) {
      case FieldKind::Ptr:
        return 1;
      case FieldKind::String:
        return 2;
      case FieldKind::Slice:
        return 3;
      case FieldKind::Iface:
        return 4;
      case FieldKind::Eface:
        return 5;
    }
  } else {
    switch (kind) {
      case FieldKind::Ptr:
        return 1;
      case FieldKind::Iface:
        return 2;
      case FieldKind::Eface:
        return 3;
      case FieldKind::String:
      case FieldKind::Slice:
        break;
    }
  }
  std::fprintf(stderr, "fieldKindCode: kind %d has no number in this version\n",
               static_cast<int>(kind));
  std::abort();
}

std::string_view headerLine(FormatVersion version) {
  switch (version) {
    case FormatVersion::Go13:
      return "go1.3 heap dump\n";
    case FormatVersion::Go14:
      return "go1.4 heap dump\n";
    case FormatVersion::Go15:
      return "go1.5 heap dump\n";
    case FormatVersion::Go17:
      break;
  }
  return "go1.7 heap dump\n";
}

std::string_view versionLabel(FormatVersion version) {
  return headerLine(version).substr(0, 5);
}

std::vector<uint8_t> encodeUvarint(uint64_t v) {
  std::vector<uint8_t> out;
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
  return out;
}

DumpBuilder::DumpBuilder(FormatVersion version, uint32_t ptr_size, bool big_endian,
                         bool write_header)
    : version_(version), ptr_size_(ptr_size), big_endian_(big_endian) {
  if (write_header) raw(headerLine(version));
}

// --- primitives ---

DumpBuilder& DumpBuilder::uvarint(uint64_t v) {
  auto enc = encodeUvarint(v);
  out_.insert(out_.end(), enc.begin(), enc.end());
  return *this;
}

DumpBuilder& DumpBuilder::string(std::string_view s) {
  uvarint(s.size());
  return raw(s);
}

DumpBuilder& DumpBuilder::bytesString(std::span<const uint8_t> s) {
  uvarint(s.size());
  return raw(s);
}

DumpBuilder& DumpBuilder::boolean(bool b) {
  return uvarint(b ? 1 : 0);
}

DumpBuilder& DumpBuilder::raw(std::span<const uint8_t> bytes) {
  out_.insert(out_.end(), bytes.begin(), bytes.end());
  return *this;
}

DumpBuilder& DumpBuilder::raw(std::string_view bytes) {
  for (char c : bytes) out_.push_back(static_cast<uint8_t>(c));
  return *this;
}

DumpBuilder& DumpBuilder::fieldList(const FieldList& fields) {
  for (const Field& f : fields) {
    uvarint(f.kind);
    uvarint(f.offset);
  }
  return uvarint(0);
}

void DumpBuilder::putWord(std::vector<uint8_t>& buf, size_t offset, uint64_t value) const {
  for (uint32_t i = 0; i < ptr_size_; ++i) {
    uint32_t shift = big_endian_ ? 8 * (ptr_size_ - 1 - i) : 8 * i;
    buf.at(offset + i) = static_cast<uint8_t>(value >> shift);
  }
}

std::vector<uint8_t> DumpBuilder::words(std::initializer_list<uint64_t> values) const {
  std::vector<uint8_t> buf(values.size() * ptr_size_);
  size_t off = 0;
  for (uint64_t v : values) {
    putWord(buf, off, v);
    off += ptr_size_;
  }
  return buf;
}

// --- records ---

Written DumpBuilder::params(const ParamsSpec& p) {
  Written w{.begin = offset()};
  tag(Tag::Params);
  boolean(p.big_endian.value_or(big_endian_));
  uvarint(p.ptr_size.value_or(ptr_size_));
  if (version_ == FormatVersion::Go13) uvarint(p.hchan_size);
  uvarint(p.heap_start);
  uvarint(p.heap_end);
  if (version_ == FormatVersion::Go17) {
    string(p.arch);
  } else {
    uvarint(p.thechar);
  }
  string(p.second_string);
  uvarint(p.ncpu);
  w.end = offset();
  return w;
}

Written DumpBuilder::type(const TypeSpec& t) {
  Written w{.begin = offset()};
  tag(Tag::Type);
  uvarint(t.addr);
  uvarint(t.size);
  string(t.name);
  boolean(t.data_is_pointer);
  if (version_ == FormatVersion::Go13) {
    w.fieldlist = offset();
    fieldList(t.fields);
  }
  w.end = offset();
  return w;
}

Written DumpBuilder::itab(const ItabSpec& i) {
  Written w{.begin = offset()};
  tag(Tag::Itab);
  uvarint(i.addr);
  if (version_ == FormatVersion::Go13) {
    boolean(i.data_is_pointer);
  } else {
    uvarint(i.type_addr);
  }
  w.end = offset();
  return w;
}

Written DumpBuilder::object(const ObjectSpec& o) {
  Written w{.begin = offset()};
  tag(Tag::Object);
  uvarint(o.addr);
  if (version_ == FormatVersion::Go13) {
    uvarint(o.type_addr);
    uvarint(o.kind);
  }
  uvarint(o.contents.size());
  w.contents = offset();
  raw(o.contents);
  if (version_ != FormatVersion::Go13) {
    w.fieldlist = offset();
    fieldList(o.fields);
  }
  w.end = offset();
  return w;
}

Written DumpBuilder::otherRoot(const OtherRootSpec& r) {
  Written w{.begin = offset()};
  tag(Tag::OtherRoot);
  string(r.description);
  uvarint(r.addr);
  w.end = offset();
  return w;
}

Written DumpBuilder::goroutine(const GoroutineSpec& g) {
  Written w{.begin = offset()};
  tag(Tag::Goroutine);
  uvarint(g.addr);
  uvarint(g.sp);
  uvarint(g.goid);
  uvarint(g.gopc);
  uvarint(g.status);
  boolean(g.is_system);
  boolean(g.is_background);
  uvarint(g.wait_since);
  string(g.wait_reason);
  uvarint(g.ctxt);
  uvarint(g.m_addr);
  uvarint(g.top_defer);
  uvarint(g.top_panic);
  w.end = offset();
  return w;
}

Written DumpBuilder::frame(const FrameSpec& f) {
  Written w{.begin = offset()};
  tag(Tag::StackFrame);
  uvarint(f.sp);
  uvarint(f.depth);
  uvarint(f.child_sp);
  uvarint(f.contents.size());
  w.contents = offset();
  raw(f.contents);
  uvarint(f.entry_pc);
  uvarint(f.pc);
  uvarint(f.continpc);
  string(f.function);
  w.fieldlist = offset();
  fieldList(f.fields);
  w.end = offset();
  return w;
}

Written DumpBuilder::finalizerRecord(Tag t, const FinalizerSpec& f) {
  Written w{.begin = offset()};
  tag(t);
  uvarint(f.obj);
  uvarint(f.fn_val);
  uvarint(f.fn_pc);
  uvarint(f.arg_type);
  uvarint(f.obj_type);
  w.end = offset();
  return w;
}

Written DumpBuilder::finalizer(const FinalizerSpec& f) {
  return finalizerRecord(Tag::Finalizer, f);
}

Written DumpBuilder::queuedFinalizer(const FinalizerSpec& f) {
  return finalizerRecord(Tag::QueuedFinalizer, f);
}

Written DumpBuilder::osThread(const OsThreadSpec& t) {
  Written w{.begin = offset()};
  tag(Tag::OsThread);
  uvarint(t.addr);
  uvarint(t.id);
  uvarint(t.procid);
  w.end = offset();
  return w;
}

Written DumpBuilder::segment(Tag t, const SegmentSpec& s) {
  Written w{.begin = offset()};
  tag(t);
  uvarint(s.addr);
  uvarint(s.contents.size());
  w.contents = offset();
  raw(s.contents);
  w.fieldlist = offset();
  fieldList(s.fields);
  w.end = offset();
  return w;
}

Written DumpBuilder::data(const SegmentSpec& s) {
  return segment(Tag::Data, s);
}
Written DumpBuilder::bss(const SegmentSpec& s) {
  return segment(Tag::Bss, s);
}

Written DumpBuilder::deferRecord(const DeferSpec& d) {
  Written w{.begin = offset()};
  tag(Tag::Defer);
  uvarint(d.addr);
  uvarint(d.goroutine);
  uvarint(d.sp);
  uvarint(d.pc);
  uvarint(d.fn_val);
  uvarint(d.fn_pc);
  uvarint(d.link);
  w.end = offset();
  return w;
}

Written DumpBuilder::panicRecord(const PanicSpec& p) {
  Written w{.begin = offset()};
  tag(Tag::Panic);
  uvarint(p.addr);
  uvarint(p.goroutine);
  uvarint(p.eface_type);
  uvarint(p.eface_data);
  uvarint(p.defer_addr);
  uvarint(p.link);
  w.end = offset();
  return w;
}

Written DumpBuilder::memStats(const MemStatsValues& values) {
  Written w{.begin = offset()};
  tag(Tag::MemStats);
  for (uint64_t v : values) uvarint(v);
  w.end = offset();
  return w;
}

Written DumpBuilder::memProf(const BucketSpec& b) {
  Written w{.begin = offset()};
  tag(Tag::MemProf);
  uvarint(b.id);
  uvarint(b.size);
  uvarint(b.frames.size());
  for (const ProfileFrameSpec& f : b.frames) {
    string(f.function);
    string(f.file);
    uvarint(f.line);
  }
  uvarint(b.allocs);
  uvarint(b.frees);
  w.end = offset();
  return w;
}

Written DumpBuilder::allocSample(const AllocSampleSpec& s) {
  Written w{.begin = offset()};
  tag(Tag::AllocSample);
  uvarint(s.addr);
  uvarint(s.bucket_id);
  w.end = offset();
  return w;
}

Written DumpBuilder::eof() {
  Written w{.begin = offset()};
  tag(Tag::Eof);
  w.end = offset();
  return w;
}

}  // namespace goheap::testsupport
