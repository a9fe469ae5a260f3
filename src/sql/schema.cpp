#include "sql/schema.h"

namespace goheap::sql {

namespace {

// A markdown table cell: a `|` would end it.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// "paths(target [, max_paths])": a function's first argument is required,
// the others optional. A table's name alone.
std::string signature(const TableSchema& table) {
  std::string out(table.name);
  if (!table.function) return out;
  out += '(';
  int arguments = 0;
  for (const Column& c : table.columns) {
    if (c.use != ColumnUse::Argument) continue;
    if (arguments++ > 0) out += " [, ";
    out += c.name;
  }
  for (int i = 1; i < arguments; i++) out += ']';
  out += ')';
  return out;
}

}  // namespace

std::string_view sqlTypeName(SqlType type) {
  switch (type) {
    case SqlType::Integer:
      return "INTEGER";
    case SqlType::Text:
      return "TEXT";
    case SqlType::Blob:
      return "BLOB";
  }
  return "BLOB";
}

std::string createTableSql(const TableSchema& table) {
  std::string sql = "CREATE TABLE x(";
  for (const Column& c : table.columns) {
    if (&c != &table.columns.front()) sql += ", ";
    sql += '"';
    sql += c.name;
    sql += "\" ";
    sql += sqlTypeName(c.type);
    if (c.use == ColumnUse::Argument) sql += " HIDDEN";
  }
  sql += ")";
  return sql;
}

std::vector<int> indexedColumns(const TableSchema& table) {
  std::vector<int> out;
  for (const Column& c : table.columns) {
    if (c.use == ColumnUse::Indexed) out.push_back(c.number);
  }
  return out;
}

std::string schemaMarkdown() {
  std::string out;
  for (const TableSchema* table : kSqlSchema) {
    out += "\n### " + signature(*table) + "\n\n";
    out += std::string(table->doc) + "\n\n";
    out += "| column | type | |\n|---|---|---|\n";
    for (const Column& c : table->columns) {
      std::string type(sqlTypeName(c.type));
      if (c.use == ColumnUse::Indexed) type += ", indexed";
      if (c.use == ColumnUse::Argument) type += ", argument";
      out += "| `" + std::string(c.name) + "` | " + type + " | " + cell(c.doc) + " |\n";
    }
  }
  out += "\n";
  return out;
}

}  // namespace goheap::sql
