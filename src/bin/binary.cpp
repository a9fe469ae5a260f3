#include "bin/binary.h"

#include <cstring>
#include <string_view>

#include "bin/build_version.h"
#include "bin/buildinfo.h"
#include "bin/debug_file_search.h"
#include "bin/inline.h"
#include "bin/moduledata.h"

namespace goheap::bin {

namespace {

bool plausibleVersion(std::string_view v) {
  if (v.size() < 3 || v.size() > kMaxVersionLength || v.substr(0, 2) != "go") {
    return v.substr(0, 5) == "devel" && v.size() <= kMaxVersionLength;
  }
  return true;
}

}  // namespace

std::optional<std::string> goVersionFromBuildInfo(const Container& c) {
  std::optional<RawBuildInfo> raw = readRawBuildInfo(c);
  if (!raw || !plausibleVersion(raw->go_version)) return std::nullopt;
  return raw->go_version;
}

std::optional<std::string> goVersionFromSymbol(const Container& c) {
  const Symbol* s = c.symbol("runtime.buildVersion");
  if (s == nullptr) return std::nullopt;
  std::optional<std::string> v =
      goStringAt(c, s->value, c.ptr_size, c.big_endian, kMaxVersionLength);
  return v && plausibleVersion(*v) ? v : std::nullopt;
}

std::optional<ModuleLayout> moduleLayoutFromSymbols(const Container& c) {
  ModuleLayout m;
  struct Range {
    std::string_view begin, end;
    uint64_t *lo, *hi;
  };
  const Range ranges[] = {{"runtime.text", "runtime.etext", &m.text, &m.etext},
                          {"runtime.noptrdata", "runtime.enoptrdata", &m.noptrdata, &m.enoptrdata},
                          {"runtime.data", "runtime.edata", &m.data, &m.edata},
                          {"runtime.bss", "runtime.ebss", &m.bss, &m.ebss},
                          {"runtime.noptrbss", "runtime.enoptrbss", &m.noptrbss, &m.enoptrbss}};
  bool found = false;
  for (const Range& r : ranges) {
    const Symbol* b = c.symbol(r.begin);
    const Symbol* e = c.symbol(r.end);
    if (b != nullptr && e != nullptr && e->value >= b->value) {
      *r.lo = b->value;
      *r.hi = e->value;
      found = true;
    }
  }
  if (found) {
    if (const Symbol* t = c.symbol("runtime.types")) m.types = t->value;
    if (const Symbol* g = c.symbol("go:func.*")) m.gofunc = g->value;
    if (const Symbol* g = c.symbol("go.func.*")) m.gofunc = g->value;
    m.source = "symbols";
    return m;
  }
  const Section* data = c.format == ContainerFormat::MachO ? c.section("__data") : nullptr;
  const Section* bss = c.format == ContainerFormat::MachO ? c.section("__bss") : nullptr;
  if (c.format == ContainerFormat::Elf) {
    data = c.section(".data");
    bss = c.section(".bss");
  }
  // PE puts data and bss of every kind into one .data section: no answer.
  if (data == nullptr || bss == nullptr) return std::nullopt;
  m.data = data->addr;
  m.edata = data->addr + data->size;
  m.bss = bss->addr;
  m.ebss = bss->addr + bss->size;
  m.source = "sections";
  return m;
}

Expected<std::vector<SourceFrame>> Binary::symbolize(uint64_t pc) const {
  const uint64_t gofunc = module_layout_ ? module_layout_->gofunc : 0;
  return InlineExpander(container_, *pclntab_, inline_format_, gofunc).expand(pc);
}

int64_t Binary::startLine(const Func& f) const {
  if (std::optional<int64_t> line = pclntab_->startLineField(f)) return *line;
  Expected<Location> loc = pclntab_->pcToLineIn(f, f.entry);
  return loc ? loc->line : 0;
}

const DebugInfo* Binary::debugInfo() const {
  std::call_once(dwarf_->once, [this] {
    dwarf_->reads++;
    Expected<DebugInfo> d = DebugInfo::read(dwarf_->container ? *dwarf_->container : container_);
    if (d) {
      dwarf_->info = std::make_unique<DebugInfo>(d.take());
    } else {
      dwarf_->problem =
          dwarf_->path.empty() ? d.error().message() : dwarf_->path + ": " + d.error().message();
      if (!dwarf_->search_note.empty()) dwarf_->problem += "; " + dwarf_->search_note;
    }
  });
  return dwarf_->info.get();
}

const std::string& Binary::debugInfoProblem() const {
  debugInfo();
  return dwarf_->problem;
}

Status Binary::useDebugFile(const std::string& path, std::string found_by) {
  GOHEAP_TRY(MappedFile file, MappedFile::open(path));
  auto mapped = std::make_unique<MappedFile>(std::move(file));
  Expected<Container> c = readContainer(mapped->bytes());
  if (!c) return c.error().inFile(path);
  if (std::string why = debugFileMismatch(container_, *c); !why.empty()) {
    return Error::needsInput(path + " is not the debug file of " + this->path() + ": " + why);
  }
  dwarf_->file = std::move(mapped);
  dwarf_->container = c.take();
  dwarf_->path = path;
  dwarf_->found_by = std::move(found_by);
  return Status::success();
}

void Binary::noteDebugFileSearch(std::string explanation) {
  dwarf_->search_note = std::move(explanation);
}

const std::string& Binary::debugFilePath() const {
  return dwarf_->path;
}

const std::string& Binary::debugFileFoundBy() const {
  return dwarf_->found_by;
}

Expected<Binary> Binary::open(const std::string& path) {
  GOHEAP_TRY(MappedFile file, MappedFile::open(path));
  Expected<Binary> b = build(std::make_unique<MappedFile>(std::move(file)));
  if (!b) return b.error().inFile(path);
  return b;
}

Expected<Binary> Binary::openPart(const std::string& path, uint64_t offset, uint64_t size) {
  GOHEAP_TRY(MappedFile file, MappedFile::openPart(path, offset, size));
  Expected<Binary> b = build(std::make_unique<MappedFile>(std::move(file)));
  if (!b) return b.error().inFile(path + " (the executable it carries)");
  return b;
}

Expected<Binary> Binary::fromBytes(std::span<const uint8_t> bytes, std::string name) {
  Expected<Binary> b = build(std::make_unique<MappedFile>(MappedFile::borrow(bytes, name)));
  if (!b) return b.error().inFile(name);
  return b;
}

Expected<Binary> Binary::build(std::unique_ptr<MappedFile> file) {
  Binary b;
  b.file_ = std::move(file);
  GOHEAP_TRY(b.container_, readContainer(b.file_->bytes()));
  GOHEAP_TRY(b.pclntab_, findPclntab(b.container_));
  b.symbols_ = SymbolIndex(b.container_.symbols);
  if (std::optional<std::string> v = goVersionFromBuildInfo(b.container_)) {
    b.go_version_ = *v;
    b.go_version_source_ = "buildinfo";
  } else if (std::optional<std::string> s = goVersionFromSymbol(b.container_)) {
    b.go_version_ = *s;
    b.go_version_source_ = "runtime.buildVersion";
  }
  // The runtime's own record first: it is there in stripped files too.
  b.module_layout_ =
      moduleLayoutFromModuledata(b.container_, *b.pclntab_, goMinorVersion(b.go_version_));
  if (!b.module_layout_) b.module_layout_ = moduleLayoutFromSymbols(b.container_);
  if (b.module_layout_ && b.module_layout_->text != 0) {
    if (Status s = b.pclntab_->setTextStart(b.module_layout_->text); !s) return s.error();
  }
  if (b.module_layout_ && b.module_layout_->types == 0) {
    if (const Symbol* ts = b.container_.symbol("runtime.types"))
      b.module_layout_->types = ts->value;
  }
  // Stripped and older than build info: the variable's header, found in
  // the data the module layout names.
  if (b.go_version_source_.empty()) {
    if (std::optional<std::string> v =
            goVersionFromStringHeader(b.container_, b.module_layout_, b.pclntab_->layout())) {
      b.go_version_ = *v;
      b.go_version_source_ = "runtime.buildVersion header";
    }
  }
  if (std::optional<Expected<BuildInfo>> bi = readBuildInfo(b.container_)) {
    if (bi->ok()) {
      b.build_info_ = bi->take();
    } else {
      b.build_info_error_ = bi->error().message();
    }
  }
  b.build_id_ = readBuildId(b.container_);
  b.inline_format_ = inlineTreeFormat(b.pclntab_->layout(), goMinorVersion(b.go_version_));
  return b;
}

}  // namespace goheap::bin
