// Renders the page of `goheap report` from the JSON document embedded in it
// (the same document as the .json file written beside it; its sections are
// the documents of summary, top, suspects, dups, waste and diff, see
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

// A section whose document this page has no special layout for: its arrays of
// rows as tables, every scalar field a column.
function generic(path) {
  const doc = at(path);
  const out = [];
  if (!doc || typeof doc !== "object") return out;
  for (const [key, value] of Object.entries(doc)) {
    if (!Array.isArray(value) || value.length === 0 || typeof value[0] !== "object") continue;
    const columns = Object.keys(value[0]).filter(k => typeof value[0][k] !== "object").map(k => ({
      title: k, key: k,
      kind: typeof value[0][k] === "number" ? (/byte|size|retained|shallow|wasted/.test(k) ? "bytes" : "count") : "text",
    }));
    out.push(el("h3", {}, key), table(`${path}.${key}`, columns));
  }
  return out;
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

function renderSection(id, title) {
  if (!report[id]) return null;
  const body = generic(id);
  return section(id, title, ...(body.length ? body : [el("p", { class: "muted" }, "nothing found")]));
}

function render() {
  const main = document.getElementById("report");
  main.textContent = "";
  const s = report.summary;
  document.getElementById("subtitle").textContent =
    `${s.file}${report.base ? " against " + report.base : ""} · ${s.go_version || s.format_version} ${s.arch}`;
  main.append(...[
    renderVerdict(),
    renderSummary(),
    renderSection("diff", "What grew since the base dump"),
    renderSection("suspects", "Leak suspects"),
    renderTop(),
    renderSection("duplicates", "Duplicates"),
    renderSection("waste", "Waste"),
  ].filter(Boolean));
  document.body.setAttribute("data-rendered", "true");
}

render();
