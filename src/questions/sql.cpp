// SQL over the heap's tables (docs/sql.md): /api/sql and the MCP's sql
// tool ask it here; `goheap sql` has a command of its own (statements from
// standard input, printed one by one as they finish) that writes its
// results with the same functions.
#include "questions/question.h"
#include "questions/sql_text.h"
#include "sql/database.h"
#include "sql/heap_indexes.h"
#include "sql/result_json.h"

namespace goheap::questions {

namespace {

const QuestionInfo kInfo{
    .name = "sql",
    .summary = "SQL over the heap: objects, references, roots, fields, strings as tables",
    .heaps = HeapsNeeded::OneAndBase,
    .csv = true,
    .command_line = true,
    .kept = false,
    .description =
        "Runs SQL over the heap's tables (docs/sql.md): objects, refs, roots, goroutines, "
        "frames, globals, types, sites, fields and strings, with paths(ID), subtree(ID) and "
        "dominators(ID); the base heap, when there is one, is the schema old. Only reads: "
        "statements that write are refused, and each stops at the time and row limits.",
    .examples =
        {
            {"GET /api/sql?q=SELECT type, count(*) FROM objects GROUP BY 1 ORDER BY 2 DESC LIMIT 5",
             "the five most numerous types"},
            {"GET /api/sql?q=SELECT * FROM paths(object_at(0xc000123450))",
             "why an object is alive"},
        },
};

struct SqlQuery {
  std::string statements;
  std::optional<uint64_t> limit;
};

struct SqlAnswer {
  uint64_t max_rows = 0;
  std::vector<sql::SqlResult> results;
};

// Text cells: addresses in hex, as Go prints them.
bool isAddressColumn(std::string_view name) {
  return name == "address" || name == "pointer" || name.ends_with("_address") || name == "pc";
}

Expected<SqlAnswer> runSql(const Heaps& heaps, const SqlQuery& q) {
  SqlAnswer answer;
  answer.max_rows = heaps.max_rows;
  if (q.limit)
    answer.max_rows = heaps.max_rows == 0 ? *q.limit : std::min(*q.limit, heaps.max_rows);
  const auto tables = [](const Session& s) -> const sql::SqlHeap& {
    return s.derived<sql::SqlHeap>([&] { return std::make_unique<sql::SqlHeap>(s); });
  };
  GOHEAP_TRY(auto db, sql::HeapDatabase::open(tables(heaps.current),
                                              heaps.base ? &tables(*heaps.base) : nullptr));
  // Bad SQL, a statement that writes or one stopped at the time limit is
  // the asker's to change.
  auto results = db->run(q.statements, {answer.max_rows, heaps.seconds, heaps.cancelled});
  if (!results) return Error::needsInput(results.error().message()).atParameter("q");
  answer.results = results.take();
  return answer;
}

std::string sqlJson(const Heaps& /*heaps*/, const SqlQuery& /*q*/, const SqlAnswer& a) {
  return jsonDocument([&](JsonWriter& w) {
    w.field("max_rows", a.max_rows).key("results").beginArray();
    for (const sql::SqlResult& r : a.results) sql::writeResultJson(w, r);
    w.endArray();
  });
}

std::string sqlText(const Heaps& /*heaps*/, const SqlQuery& /*q*/, const SqlAnswer& a,
                    const TextStyle& style) {
  std::string out;
  for (size_t i = 0; i < a.results.size(); i++) {
    out += style.csv ? sqlResultCsv(a.results[i], i == 0)
                     : sqlResultText(a.results[i], a.results.size() > 1, style.width);
  }
  return out;
}

const Parts<SqlQuery, SqlAnswer> kParts{
    .fields =
        {
            field<&SqlQuery::statements>(
                textParam("q", "SQL", "the SQL: one or more statements separated by ';'")
                    .withCliName("query")
                    .apiOnly()
                    .mustBeGiven()),
            field<&SqlQuery::limit>(
                uintParam("limit", "", "N", "rows kept per statement (at most the server's limit)")
                    .apiOnly()),
        },
    .check =
        [](SqlQuery& q, query::ParamReader& r) {
          if (r.has("q") && q.statements.find_first_not_of(" \t\r\n;") == std::string::npos) {
            r.fail("q", "holds no statement: give the SQL to run, like SELECT ... (docs/sql.md)");
          }
          if (q.limit && *q.limit == 0) r.fail("limit", "must be a count of rows above 0");
        },
    .run = runSql,
    .json = sqlJson,
    .text = sqlText,
};

}  // namespace

// The CLI's `goheap sql` has a runner of its own (cli/cmd_sql.cpp): it reads
// statements from -e or standard input and prints each as it ends.
const Question& sqlQuestion() {
  return questionOf<kInfo, kParts>();
}

std::string sqlResultText(const sql::SqlResult& r, bool many, size_t width) {
  std::string out;
  if (many) out += "-- " + r.sql + "\n";
  TextTable t;
  std::vector<bool> hex;
  for (const std::string& c : r.columns) {
    t.addColumn(c);
    hex.push_back(isAddressColumn(c));
  }
  for (const std::vector<sql::Value>& row : r.rows) {
    std::vector<std::string> cells;
    for (size_t c = 0; c < row.size(); c++) {
      const auto* i = std::get_if<int64_t>(&row[c]);
      if (i != nullptr && hex[c] && *i > 0) {
        cells.push_back(formatHex(static_cast<uint64_t>(*i)));
      } else {
        cells.push_back(sql::cellText(row[c], "NULL"));
      }
    }
    t.addRow(std::move(cells));
  }
  if (!r.columns.empty()) out += t.renderText(width);
  std::string footer = formatCount(r.rows.size()) + (r.rows.size() == 1 ? " row" : " rows");
  if (r.truncated) footer += " (more not shown: --max-rows 0 shows all)";
  return out + footer + "\n" + (many ? "\n" : "");
}

std::string sqlResultCsv(const sql::SqlResult& r, bool first) {
  TextTable t;
  for (const std::string& c : r.columns) t.addColumn(c);
  for (const std::vector<sql::Value>& row : r.rows) {
    std::vector<std::string> cells;
    for (const sql::Value& v : row) cells.push_back(sql::cellText(v, ""));
    t.addRow(std::move(cells));
  }
  // Appended, not "\n" + string: GCC 12's -O3 takes that for an
  // overlapping copy (-Wrestrict).
  std::string out = first ? "" : "\n";
  out += t.renderCsv();
  return out;
}

}  // namespace goheap::questions
