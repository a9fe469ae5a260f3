// The SQL schema is declared once (src/sql/schema.h): docs/sql.md's schema
// section is what `goheap sql --schema` prints from it, and SQLite's own
// catalogue of a connection (PRAGMA table_xinfo) is what it declares, for
// every table and table-valued function. The built tables' rows have one
// cell per declared column.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>

#include "sql/built_tables.h"
#include "sql/database.h"
#include "sql/schema.h"
#include "support/export_support.h"
#include "support/goheap_process.h"
#include "support/open_heap.h"

namespace goheap {
namespace {

const std::string kDocPath = std::string(GOHEAP_SOURCE_DIR) + "/docs/sql.md";
// The lines around the generated section of docs/sql.md.
constexpr std::string_view kBeginMarker = "<!-- schema: generated from src/sql/schema.h";
constexpr std::string_view kEndMarker = "<!-- end of the generated schema -->";
constexpr const char* kRegenerate =
    "build/goheap sql --schema > /tmp/schema.md && sed -i -e '/^<!-- schema: generated/,/^<!-- "
    "end of the generated schema/{//!d}' -e '/^<!-- schema: generated/r /tmp/schema.md' "
    "docs/sql.md";

const std::string kLeakyDump = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky.dump";
const std::string kLeakyExe = std::string(GOHEAP_SOURCE_DIR) + "/examples/leaky-linux-amd64";

// What lies between the marker lines (after the begin line's newline, up to
// the end line); an empty optional when they are not there once each.
std::optional<std::string> generatedSection(const std::string& doc) {
  const size_t begin = doc.find(kBeginMarker);
  const size_t end = doc.find(kEndMarker);
  if (begin == std::string::npos || end == std::string::npos || end < begin ||
      doc.find(kBeginMarker, begin + 1) != std::string::npos ||
      doc.find(kEndMarker, end + 1) != std::string::npos) {
    return std::nullopt;
  }
  const size_t first = doc.find('\n', begin) + 1;
  if (first > end) return std::nullopt;
  return doc.substr(first, end - first);
}

// Where two texts part: "line N: 'doc line' should be 'generated line'".
std::string firstDifference(const std::string& doc, const std::string& generated) {
  std::istringstream a(doc), b(generated);
  std::string x, y;
  for (int line = 1;; line++) {
    const bool more_a = static_cast<bool>(std::getline(a, x));
    const bool more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) return "they differ only in the last newline";
    if (!more_a) x = "(the end)";
    if (!more_b) y = "(the end)";
    if (x != y || !more_a || !more_b) {
      return "its line " + std::to_string(line) + ": '" + x + "' should be '" + y + "'";
    }
  }
}

TEST(SqlSchema, DocsSchemaSectionIsTheGeneratedOne) {
  const std::string doc = testing::readWholeFile(kDocPath);
  ASSERT_FALSE(doc.empty()) << kDocPath;
  const std::optional<std::string> section = generatedSection(doc);
  ASSERT_TRUE(section) << kDocPath << " should hold the lines '" << kBeginMarker << " ...' and '"
                       << kEndMarker << "', once each, around the schema";
  const std::string generated = sql::schemaMarkdown();
  EXPECT_TRUE(*section == generated)
      << "docs/sql.md's schema section is not what src/sql/schema.h declares ("
      << firstDifference(*section, generated)
      << "); regenerate it, from the source directory after building:\n  " << kRegenerate;
  // The cookbook the Query page and cookbook_test.cpp read comes after it.
  EXPECT_LT(doc.find(kEndMarker), doc.find("## Cookbook"));
}

TEST(SqlSchema, GoheapSqlSchemaPrintsItWithoutAHeap) {
  const testing::RunResult r = testing::runGoheap({"sql", "--schema"});
  ASSERT_TRUE(r.exited) << r.describe();
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_EQ(r.out, sql::schemaMarkdown());
  EXPECT_EQ(r.err, "");
}

TEST(SqlSchema, EachTableAndFunctionIsDeclaredToSqliteAsInTheSchema) {
  auto session = testing::openSession(kLeakyDump, kLeakyExe);
  ASSERT_TRUE(session) << session.error().message();
  const sql::SqlHeap heap(*session);
  auto db = sql::HeapDatabase::open(heap, nullptr);
  ASSERT_TRUE(db) << db.error().message();

  ASSERT_EQ(std::size(sql::kSqlSchema), 14u) << "11 tables and 3 functions";
  for (const sql::TableSchema* table : sql::kSqlSchema) {
    SCOPED_TRACE(std::string(table->name));
    // cid, name, type, notnull, dflt_value, pk, hidden (1: a HIDDEN column)
    auto ran = (*db)->run("PRAGMA table_xinfo(" + std::string(table->name) + ")");
    ASSERT_TRUE(ran) << ran.error().message();
    const std::vector<std::vector<sql::Value>>& rows = ran->front().rows;
    ASSERT_EQ(rows.size(), table->columns.size());
    for (size_t c = 0; c < rows.size(); c++) {
      const sql::Column& want = table->columns[c];
      EXPECT_EQ(std::get<std::string>(rows[c][1]), want.name);
      EXPECT_EQ(std::get<std::string>(rows[c][2]), sql::sqlTypeName(want.type));
      EXPECT_EQ(std::get<int64_t>(rows[c][6]), want.use == sql::ColumnUse::Argument ? 1 : 0)
          << want.name;
    }
  }
}

TEST(SqlSchema, BuiltRowsHaveOneCellPerDeclaredColumn) {
  auto session = testing::openSession(kLeakyDump, kLeakyExe);
  ASSERT_TRUE(session) << session.error().message();
  const sql::SqlHeap heap(*session);
  for (size_t t = 0; t < static_cast<size_t>(sql::BuiltTable::Count); t++) {
    const auto which = static_cast<sql::BuiltTable>(t);
    const sql::TableSchema& schema = sql::builtTableSpec(which).schema;
    SCOPED_TRACE(std::string(schema.name));
    const sql::BuiltRows& built = heap.rows(which);
    // A heap dump has no mappings: tests/core/process_memory_test.cpp reads
    // a core's.
    if (which == sql::BuiltTable::Mappings) {
      EXPECT_TRUE(built.rows.empty());
      continue;
    }
    ASSERT_FALSE(built.rows.empty()) << "the leaky example has " << schema.name;
    for (const std::vector<sql::Value>& row : built.rows) {
      ASSERT_EQ(row.size(), schema.columns.size());
    }
  }
}

}  // namespace
}  // namespace goheap
