#include "goruntime/runtime_table.h"

#include <algorithm>

#include "util/go_version.h"
#include "util/string_literal.h"

namespace goheap::goruntime {
namespace {

// The committed tables: kRuntimeTables.
#include "goruntime/runtime_tables.inc"

}  // namespace

std::string releaseName(std::string_view go_version) {
  const GoVersion v = parseGoVersion(go_version);
  return v.minor ? "go1." + std::to_string(*v.minor) : std::string(go_version);
}

std::string runtimeTableSource(const RuntimeTableEntry& e) {
  const std::string id = runtimeTableName(e.go_version, e.goarch);
  std::string out = "// " + e.go_version + " " + e.goarch + "\n";
  out += "constexpr TableStruct " + id + "_structs[] = {\n";
  for (const auto& [name, size] : e.structs) {
    out += "    {" + quotedLiteral(name) + ", " + std::to_string(size) + "},\n";
  }
  out += "};\nconstexpr TableField " + id + "_fields[] = {\n";
  for (const RuntimeTableEntry::Field& f : e.fields) {
    out += "    {" + quotedLiteral(f.owner) + ", " + quotedLiteral(f.name) + ", " +
           std::to_string(f.offset) + ", " + std::to_string(f.size) + ", " +
           std::to_string(f.count) + ", " + std::to_string(f.inner_count) + ", " +
           quotedLiteral(f.type) + "},\n";
  }
  out += "};\nconstexpr std::string_view " + id + "_wait_reasons[] = {\n";
  for (const std::string& r : e.wait_reasons) out += "    " + quotedLiteral(r) + ",\n";
  return out + "};\n";
}

const TableStruct* RuntimeTable::structNamed(std::string_view name) const {
  for (const TableStruct& s : structs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const TableField* RuntimeTable::field(std::string_view owner, std::string_view name) const {
  for (const TableField& f : fields) {
    if (f.owner == owner && f.name == name) return &f;
  }
  return nullptr;
}

std::string runtimeTableName(std::string_view go_version, std::string_view goarch) {
  // Appended, not "k" + ...: GCC 12 at -O3 warns (-Wrestrict) on that form.
  std::string id = "k";
  id.append(releaseName(go_version)).append("_").append(goarch);
  std::replace(id.begin(), id.end(), '.', '_');
  return id;
}

std::span<const RuntimeTable> runtimeTables() {
  return kRuntimeTables;
}

const RuntimeTable* runtimeTableFor(std::string_view go_version, std::string_view goarch) {
  const std::string release = releaseName(go_version);
  for (const RuntimeTable& t : kRuntimeTables) {
    if (t.go_version == release && t.goarch == goarch) return &t;
  }
  return nullptr;
}

std::string runtimeTableSource(const RuntimeTable& t) {
  RuntimeTableEntry e{std::string(t.go_version), std::string(t.goarch), {}, {}, {}};
  for (const TableStruct& s : t.structs) e.structs.emplace_back(std::string(s.name), s.size);
  for (const TableField& f : t.fields) {
    e.fields.push_back({std::string(f.owner), std::string(f.name), f.offset, f.size, f.count,
                        f.inner_count, std::string(f.type)});
  }
  for (std::string_view r : t.wait_reasons) e.wait_reasons.emplace_back(r);
  return runtimeTableSource(e);
}

}  // namespace goheap::goruntime
