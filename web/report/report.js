// Renders the page of `goheap report` from the JSON document embedded in it
// (the same document as the .json file written beside it; its sections are
// the documents of summary, top, suspects, dups, waste, leaks, memory and diff, see
// docs/cli-json.md). Every number shown carries data-path (where in the
// document it comes from) and data-value (the exact integer), so a test can
// check the page against the JSON and a reader can hover for exact bytes.
"use strict";

const report = JSON.parse(document.getElementById("report-data").textContent);

// ---- formatting ------------------------------------------------------------

function fmtBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = Math.abs(Number(n));
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  const text = i === 0 ? v.toFixed(0) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
  return (Number(n) < 0 ? "-" : "") + text + " " + units[i];
}
function fmtCount(n) { return Number(n).toLocaleString("en-US"); }
function signed(text, n) { return Number(n) > 0 ? "+" + text : text; }
function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + "%" : "-"; }

// The value at a dotted path ("summary.objects.count", "top.rows.0.name").
function at(path) {
  let v = report;
  for (const part of path.split(".")) {
    if (v === undefined || v === null) return undefined;
    v = v[part];
  }
  return v;
}

// ---- building the page -----------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// A number from the document: bytes, a count, or a signed delta of either.
function num(path, kind, tag = "span") {
  const v = at(path);
  if (v === undefined || v === null) return el(tag, { class: "num muted" }, "-");
  let text;
  if (kind === "bytes") text = fmtBytes(v);
  else if (kind === "dbytes") text = signed(fmtBytes(v), v);
  else if (kind === "dcount") text = signed(fmtCount(v), v);
  else text = fmtCount(v);
  const cls = kind.startsWith("d") ? (v > 0 ? "num plus" : v < 0 ? "num minus" : "num") : "num";
  return el(tag, { class: cls, "data-path": path, "data-kind": kind, "data-value": String(v),
                   title: kind.endsWith("bytes") ? fmtCount(v) + " bytes" : undefined }, text);
}

// A node label (docs/cli-json.md, "Node labels") as text.
function label(l) {
  if (!l) return "";
  let text = l.name || l.kind || "";
  if (l.address) text += " at " + l.address;
  return text;
}

// A table of `rows` (an array at `path`): each column is
// {title, kind: "bytes"|"count"|"dbytes"|"dcount"|"text", key, text(row)}.
function table(path, columns, limit = 50) {
  const rows = at(path) || [];
  const head = el("tr", {}, columns.map(c =>
    el("th", { class: c.kind && c.kind !== "text" ? "num" : undefined }, c.title)));
  const body = rows.slice(0, limit).map((row, i) => el("tr", {}, columns.map(c => {
    if (c.kind && c.kind !== "text") return num(`${path}.${i}.${c.key}`, c.kind, "td");
    const text = c.text ? c.text(row) : row[c.key];
    return el("td", { class: c.mono ? "mono" : undefined }, text === undefined ? "" : text);
  })));
  const t = el("table", { "data-rows": path }, el("thead", {}, head), el("tbody", {}, body));
  if (rows.length > limit) {
    return el("div", {}, t, el("p", { class: "muted" }, `${rows.length - limit} more rows in the JSON file`));
  }
  return t;
}

function section(id, title, ...children) {
  return el("section", { id }, el("h2", {}, title), ...children);
}

function card(labelText, value, note) {
  return el("div", { class: "card" }, el("div", { class: "label" }, labelText),
            el("div", { class: "value" }, value), note ? el("div", { class: "muted" }, note) : null);
}

// ---- the sections ------------------------------------------------------------

function renderVerdict() {
  const g = report.growth;
  if (!g) return null;
  const limit = g.fail_if_growth;
  const text = [
    "Reachable heap ", num("growth.old_reachable_bytes", "bytes"), " → ",
    num("growth.new_reachable_bytes", "bytes"), " (", num("growth.delta_bytes", "dbytes"), ")",
  ];
  if (limit === undefined || limit === null) {
    return el("div", { class: "verdict", id: "verdict" }, ...text);
  }
  return el("div", { class: "verdict " + (g.failed ? "failed" : "passed"), id: "verdict" }, ...text,
            g.failed ? "; more than the allowed " : "; within the allowed ",
            num("growth.fail_if_growth", "bytes"), g.failed ? ": FAILED" : ": passed");
}

function renderSummary() {
  const s = report.summary;
  const out = [el("div", { class: "cards" },
    card("reachable", num("summary.objects.reachable_bytes", "bytes"),
         el("span", {}, num("summary.objects.reachable_count", "count"), " objects")),
    card("garbage (unreachable)", num("summary.objects.garbage_bytes", "bytes"),
         el("span", {}, num("summary.objects.garbage_count", "count"), " objects")),
    card("goroutines", num("summary.roots.goroutines", "count")),
    s.memstats ? card("HeapInuse (memstats)", num("summary.memstats.heap_inuse", "bytes")) : null,
    card("dump file", num("summary.file_size", "bytes")))];
  for (const w of s.warnings || []) out.push(el("p", { class: "warning" }, "warning: " + w));
  out.push(el("h3", {}, "Top retainers: objects a root holds directly"));
  out.push(table("summary.top_retainers", [
    { title: "retained", kind: "bytes", key: "retained" },
    { title: "shallow", kind: "bytes", key: "shallow" },
    { title: "object", text: r => label(r.object) },
    { title: "held by", text: r => label(r.held_by) },
  ]));
  return section("summary", "Summary", ...out);
}

function renderTop() {
  if (!report.top) return null;
  return section("top", `Biggest groups (by ${report.top.by})`, table("top.rows", [
    { title: "retained", kind: "bytes", key: "retained" },
    { title: "shallow", kind: "bytes", key: "shallow" },
    { title: "count", kind: "count", key: "count" },
    { title: "group", key: "name" },
  ]));
}

// Where the process's memory is (goheap memory): the categories, biggest
// first, each with a bar of its share of the total.
function renderMemory() {
  const doc = report.memory;
  if (!doc || !doc.categories) return null;
  const order = doc.categories.map((c, i) => i)
    .sort((a, b) => (doc.categories[b].bytes ?? -1) - (doc.categories[a].bytes ?? -1));
  const rows = order.map(i => {
    const c = doc.categories[i];
    const share = c.bytes !== null && doc.total > 0 ? c.bytes / doc.total : 0;
    return el("tr", { "data-category": c.name },
      num(`memory.categories.${i}.bytes`, "bytes", "td"),
      num(`memory.categories.${i}.resident`, "bytes", "td"),
      el("td", {}, el("div", { class: "bar", style: `width:${(100 * share).toFixed(1)}%` })),
      el("td", { class: "mono" }, c.name),
      el("td", { class: "muted" }, c.detail));
  });
  const head = el("tr", {}, ["bytes", "resident", "share", "category", "evidence"].map((t, i) =>
    el("th", { class: i < 2 ? "num" : undefined }, t)));
  return section("memory", "Where the process's memory is",
    el("p", {}, num("memory.total", "bytes"), ` from ${doc.source}: ${doc.total_is}.`),
    el("table", { "data-rows": "memory.categories" }, el("thead", {}, head), el("tbody", {}, rows)),
    ...(doc.notes || []).map(n => el("p", { class: "muted" }, "note: " + n)),
    ...(doc.advice || []).map(a => el("p", { class: "warning" }, a)));
}

// Goroutines blocked forever (goheap goroutines --leaked --group).
function renderLeaks() {
  const doc = report.leaks;
  if (!doc || !doc.groups || doc.groups.length === 0) return null;
  return section("leaks", "Goroutines blocked forever",
    el("p", { class: "muted" }, "Blocked on a channel, a select or a sync primitive that nothing able to run reaches, by the function they are blocked in, with what each group keeps alive together."),
    table("leaks.groups", [
      { title: "goroutines", kind: "count", key: "leaked" },
      { title: "retained together", kind: "bytes", key: "retained" },
      { title: "blocked in", key: "blocked_in", mono: true },
    ]));
}

function renderSuspects() {
  const doc = report.suspects;
  if (!doc) return null;
  const intro = el("p", { class: "muted" },
    `Objects, or groups of like objects, that retain at least ${doc.threshold_percent}% of the reachable heap (`,
    num("suspects.threshold_bytes", "bytes"), `), biggest first, as Eclipse MAT's leak suspects report.`);
  if (!doc.suspects.length) {
    return section("suspects", "Leak suspects", intro, el("p", { id: "no-suspects" }, "No suspects at this threshold."));
  }
  const blocks = doc.suspects.map((s, i) => {
    const p = `suspects.suspects.${i}`;
    const path = el("ol", { class: "path" }, (s.path || []).map(step =>
      el("li", {}, label(step.node), step.field ? el("span", { class: "muted" }, " ." + step.field.replace(/^\./, "")) : null)));
    return el("div", { class: "suspect", "data-rank": s.rank },
      el("h3", {}, `Suspect ${s.rank}: `, num(`${p}.retained`, "bytes"), ` (${(100 * s.share).toFixed(1)}%)`),
      el("p", { class: "description" }, s.description),
      s.accumulation_point ? el("p", {}, "Accumulates in ", el("span", { class: "mono" }, label(s.accumulation_point.node)),
        " retaining ", num(`${p}.accumulation_point.retained`, "bytes"), ", with ",
        num(`${p}.accumulation_point.children`, "count"), " children in the dominator tree") : null,
      path.children.length ? el("div", {}, el("span", { class: "muted" }, "Shortest path from a root:"), path) : null,
      s.accumulated ? table(`${p}.accumulated.top`, [
        { title: "bytes", kind: "bytes", key: "bytes" },
        { title: "count", kind: "count", key: "count" },
        { title: "what accumulates", key: "name" },
      ]) : null);
  });
  return section("suspects", "Leak suspects", intro, ...blocks);
}

function renderDiff() {
  const d = report.diff;
  if (!d) return null;
  const out = [];
  for (const w of d.warnings || []) out.push(el("p", { class: "warning" }, "warning: " + w));
  out.push(el("p", {}, num("diff.new_objects.count", "count"), " objects (", num("diff.new_objects.bytes", "bytes"),
                  ") are new since the base dump. What holds them:"));
  out.push(table("diff.new_objects.rows", [
    { title: "bytes", kind: "bytes", key: "bytes" },
    { title: "count", kind: "count", key: "count" },
    { title: "new objects", key: "group" },
    { title: "held by", text: r => label(r.holder) + (r.holders > 1 ? ` (${r.holders} holders)` : "") },
    { title: "reached from", text: r => r.reached_from ? label(r.reached_from) : "" },
  ]));
  out.push(el("h3", {}, `Growth by ${d.by}`));
  out.push(table("diff.rows", [
    { title: "retained +/-", kind: "dbytes", key: "retained_delta" },
    { title: "shallow +/-", kind: "dbytes", key: "shallow_delta" },
    { title: "count +/-", kind: "dcount", key: "count_delta" },
    { title: "count now", kind: "count", key: "new_count" },
    { title: "retained now", kind: "bytes", key: "new_retained" },
    { title: "group", key: "name" },
  ]));
  return section("diff", "What grew since the base dump", ...out);
}

function renderDuplicates() {
  const d = report.duplicates;
  if (!d) return null;
  const cards = el("div", { class: "cards" }, ["string", "bytes", "object"].map(kind =>
    card(`${kind} copies wasting`, num(`duplicates.totals.${kind}.wasted`, "bytes"),
         el("span", {}, num(`duplicates.totals.${kind}.groups`, "count"), " groups"))));
  return section("duplicates", "Duplicates", cards, table("duplicates.groups", [
    { title: "wasted", kind: "bytes", key: "wasted" },
    { title: "copies", kind: "count", key: "copies" },
    { title: "size", kind: "bytes", key: "size" },
    { title: "kind", key: "kind" },
    { title: "type", key: "name" },
    { title: "contents", key: "preview", mono: true },
    { title: "held by", text: g => (g.holders || []).map(h => `${h.name} (${h.count})`).join("; ") },
  ]));
}

function renderWaste() {
  const w = report.waste;
  if (!w) return null;
  const out = [];
  const part = (key, title, summary, columns) => {
    out.push(el("h3", {}, title));
    if (w[key].available === false) {
      out.push(el("p", { class: "muted" }, w[key].why || "needs the executable"));
      return;
    }
    out.push(el("p", {}, ...summary));
    out.push(table(`waste.${key}.rows`, columns));
  };
  part("rounding", "Size-class rounding", [num("waste.rounding.wasted", "bytes"), " lost in ",
       num("waste.rounding.objects", "count"), " objects to their size class (malloc headers ",
       num("waste.rounding.malloc_header_bytes", "bytes"), ")"], [
    { title: "wasted", kind: "bytes", key: "wasted" },
    { title: "count", kind: "count", key: "count" },
    { title: "type size", kind: "bytes", key: "type_size" },
    { title: "slot size", kind: "bytes", key: "slot_size" },
    { title: "type", key: "type" },
  ]);
  part("slices", "Arrays kept alive by short slices", [num("waste.slices.hidden_bytes", "bytes"),
       " no slice can see, in ", num("waste.slices.arrays", "count"), " arrays"], [
    { title: "hidden", kind: "bytes", key: "hidden" },
    { title: "size", kind: "bytes", key: "size" },
    { title: "visible", kind: "bytes", key: "visible" },
    { title: "array", text: r => `${r.type} at ${r.address}` },
    { title: "held by", key: "holder" },
  ]);
  part("maps", "Maps with much more room than entries", [num("waste.maps.sparse", "count"), " sparse of ",
       num("waste.maps.maps", "count"), " maps, holding ", num("waste.maps.sparse_storage", "bytes")], [
    { title: "storage", kind: "bytes", key: "storage" },
    { title: "len", kind: "count", key: "len" },
    { title: "capacity", kind: "count", key: "capacity" },
    { title: "map", text: r => `${r.type} at ${r.address}` },
    { title: "held by", key: "holder" },
  ]);
  part("garbage", "Garbage still in the dump (unreachable)", [num("waste.garbage.bytes", "bytes"), " in ",
       num("waste.garbage.objects", "count"), " objects"], [
    { title: "bytes", kind: "bytes", key: "bytes" },
    { title: "count", kind: "count", key: "count" },
    { title: "group", key: "name" },
  ]);
  return section("waste", "Waste", ...out);
}

// The team's saved queries (--sql FILE): each statement's rows, and the
// --fail-if-rows verdict.
function renderSql() {
  const q = report.sql;
  if (!q) return null;
  const out = [];
  if (q.fail_if_rows) {
    out.push(el("div", { class: "verdict " + (q.failed ? "failed" : "passed"), id: "sql-verdict" },
      q.failed ? `${fmtCount(q.statements_with_rows)} saved queries returned rows: FAILED`
               : "No saved query returned a row: passed"));
  }
  q.files.forEach((f, fi) => {
    out.push(el("h3", {}, f.file));
    f.results.forEach((r, ri) => {
      out.push(el("pre", { class: "mono sql" }, r.sql));
      const head = el("tr", {}, r.columns.map(c => el("th", {}, c)));
      const body = r.rows.map(row => el("tr", {}, row.map(v =>
        el("td", { class: typeof v === "number" ? "num" : v === null ? "muted" : undefined },
           v === null ? "NULL" : String(v)))));
      out.push(el("table", { "data-sql": `${fi}.${ri}` }, el("thead", {}, head), el("tbody", {}, body)));
      out.push(el("p", { class: "muted" }, `${fmtCount(r.row_count)} rows` +
        (r.truncated ? " (the first ones; more in the heap)" : "")));
    });
  });
  return section("sql", "Saved queries", ...out);
}

function render() {
  const main = document.getElementById("report");
  main.textContent = "";
  const s = report.summary;
  document.getElementById("subtitle").textContent =
    `${s.file}${report.base ? " against " + report.base : ""} · ${s.go_version || s.format_version} ${s.arch}`;
  main.append(...[
    renderVerdict(),
    renderSql(),
    renderSummary(),
    renderDiff(),
    renderSuspects(),
    renderLeaks(),
    renderMemory(),
    renderTop(),
    renderDuplicates(),
    renderWaste(),
  ].filter(Boolean));
  document.body.setAttribute("data-rendered", "true");
}

render();
