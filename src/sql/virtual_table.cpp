#include "sql/virtual_table.h"

#include <cstring>

#include "util/format.h"

namespace goheap::sql {

namespace {

// SQLite allocates neither: the module's C callbacks below make and free
// these, and SQLite only hands back the base pointers.
struct VtabBox : sqlite3_vtab {
  std::unique_ptr<Table> table;
};
struct CursorBox : sqlite3_vtab_cursor {
  std::unique_ptr<Cursor> cursor;
};

struct ModuleAux {
  TableFactory make;
  sqlite3_module module{};
};

void setError(sqlite3_vtab* vtab, const std::string& message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", message.c_str());
}

int connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
            char** err) {
  auto* m = static_cast<ModuleAux*>(aux);
  const std::string_view schema = argc > 1 ? argv[1] : "main";
  Expected<std::unique_ptr<Table>> table = Error("no table");
  try {
    table = m->make(schema);
  } catch (const std::exception& e) {
    table = Error(e.what());
  }
  if (!table) {
    *err = sqlite3_mprintf("%s", table.error().message().c_str());
    return SQLITE_ERROR;
  }
  const std::string decl = createTableSql((*table)->schema());
  if (int rc = sqlite3_declare_vtab(db, decl.c_str()); rc != SQLITE_OK) return rc;
  // Every table reads a heap that is never written, and none has side effects.
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  auto* box = new VtabBox();
  box->table = table.take();
  *out = box;
  return SQLITE_OK;
}

int bestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  try {
    return static_cast<VtabBox*>(vtab)->table->plan(*info);
  } catch (const std::exception& e) {
    setError(vtab, e.what());
    return SQLITE_ERROR;
  }
}

int disconnect(sqlite3_vtab* vtab) {
  delete static_cast<VtabBox*>(vtab);
  return SQLITE_OK;
}

int open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  auto* box = new CursorBox();
  try {
    box->cursor = static_cast<VtabBox*>(vtab)->table->open();
  } catch (const std::exception& e) {
    delete box;
    setError(vtab, e.what());
    return SQLITE_ERROR;
  }
  *out = box;
  return SQLITE_OK;
}

int close(sqlite3_vtab_cursor* cur) {
  delete static_cast<CursorBox*>(cur);
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int idx_num, const char* /*idx_str*/, int argc,
           sqlite3_value** argv) {
  try {
    Status st = static_cast<CursorBox*>(cur)->cursor->filter(
        {idx_num, std::span<sqlite3_value* const>(argv, static_cast<size_t>(argc))});
    if (!st) {
      setError(cur->pVtab, st.error().message());
      return SQLITE_ERROR;
    }
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    setError(cur->pVtab, e.what());
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int next(sqlite3_vtab_cursor* cur) {
  try {
    static_cast<CursorBox*>(cur)->cursor->next();
  } catch (const std::exception& e) {
    setError(cur->pVtab, e.what());
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* cur) {
  return static_cast<CursorBox*>(cur)->cursor->eof() ? 1 : 0;
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) {
  try {
    static_cast<CursorBox*>(cur)->cursor->column(ctx, i);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, e.what(), -1);
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<CursorBox*>(cur)->cursor->rowid();
  return SQLITE_OK;
}

void destroyAux(void* aux) {
  delete static_cast<ModuleAux*>(aux);
}

}  // namespace

Status registerModule(sqlite3* db, const std::string& name, TableFactory make, bool eponymous) {
  auto* aux = new ModuleAux{std::move(make)};
  sqlite3_module& m = aux->module;
  m.iVersion = 0;
  // A null xCreate makes the module eponymous-only: a table-valued function.
  m.xCreate = eponymous ? nullptr : connect;
  m.xConnect = connect;
  m.xBestIndex = bestIndex;
  m.xDisconnect = disconnect;
  m.xDestroy = disconnect;
  m.xOpen = open;
  m.xClose = close;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  // sqlite3_create_module_v2 calls destroyAux on failure too.
  if (int rc = sqlite3_create_module_v2(db, name.c_str(), &m, aux, destroyAux); rc != SQLITE_OK) {
    return Error("cannot register SQL table " + name + ": " + sqlite3_errmsg(db));
  }
  return Status::success();
}

int equalityConstraint(const sqlite3_index_info& info, int column) {
  for (int i = 0; i < info.nConstraint; i++) {
    const auto& c = info.aConstraint[i];
    if (c.usable && c.iColumn == column && c.op == SQLITE_INDEX_CONSTRAINT_EQ) return i;
  }
  return -1;
}

int planLookup(sqlite3_index_info& info, std::span<const Lookup> lookups, double full_rows) {
  int best = -1, best_constraint = -1;
  for (size_t l = 0; l < lookups.size(); l++) {
    const int c = equalityConstraint(info, lookups[l].column);
    if (c < 0) continue;
    if (best < 0 || lookups[l].rows < lookups[static_cast<size_t>(best)].rows) {
      best = static_cast<int>(l);
      best_constraint = c;
    }
  }
  if (best < 0) {
    info.idxNum = 0;
    info.estimatedRows = static_cast<sqlite3_int64>(full_rows);
    info.estimatedCost = full_rows;
    return -1;
  }
  const double rows = lookups[static_cast<size_t>(best)].rows;
  info.idxNum = best + 1;
  info.aConstraintUsage[best_constraint].argvIndex = 1;
  info.aConstraintUsage[best_constraint].omit = 1;
  info.estimatedRows = static_cast<sqlite3_int64>(rows < 1 ? 1 : rows);
  // A lookup costs a little even when it finds one row, so that SQLite
  // prefers a unique one to a scan of a small table.
  info.estimatedCost = 10 + rows;
  if (rows <= 1) info.idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  return best;
}

std::optional<uint64_t> unsignedArg(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: {
      const sqlite3_int64 i = sqlite3_value_int64(v);
      if (i < 0) return std::nullopt;
      return static_cast<uint64_t>(i);
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(v);
      if (!(d >= 0) || d >= 18446744073709551616.0 ||
          d != static_cast<double>(static_cast<uint64_t>(d))) {
        return std::nullopt;
      }
      return static_cast<uint64_t>(d);
    }
    case SQLITE_TEXT: {
      Expected<uint64_t> n = parseAddress(textArg(v));
      if (!n) return std::nullopt;
      return *n;
    }
    default:
      return std::nullopt;
  }
}

std::string_view textArg(sqlite3_value* v) {
  const unsigned char* p = sqlite3_value_text(v);
  if (p == nullptr) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))};
}

}  // namespace goheap::sql
