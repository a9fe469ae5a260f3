// goheap's web UI: a small single-page app over the JSON API (docs/web-api.md).
// Every view is a URL (#/page?params), so a view can be shared and reloaded.
// The server pages and aggregates; the browser never holds the whole graph.
"use strict";

const main = document.getElementById("main");

// ---- helpers ---------------------------------------------------------------

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function fmtBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v.toFixed(0) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)) + " " + units[i];
}

function fmtCount(n) { return Number(n).toLocaleString("en-US"); }

function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + "%" : "-"; }

// A node label (docs/cli-json.md "Node labels") as HTML: objects link to their page.
// The slot a path step leaves its node by: its field, else its offset. A
// global's name says where in the global the word is: the offset is then
// the segment's, and left out.
function slotHtml(node, field, offset) {
  if (field) return ` <code>${esc(field)}</code>`;
  if (offset === undefined || node.global) return "";
  return ` <span class="muted">+${offset}</span>`;
}

function labelHtml(l) {
  if (!l) return "";
  if (l.kind === "object") {
    return `<a href="#/obj/${esc(l.address)}">${esc(l.name)}</a> <span class="muted mono">${esc(l.address)}</span>`;
  }
  return esc(l.name || l.kind);
}

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// A page whose answer came after the user moved on: it must not draw over
// the page now shown (a slow answer used to replace the next page).
class StaleRoute extends Error {}
let routeGeneration = 0;

async function api(path) {
  const generation = routeGeneration;
  const r = await fetch("/api/" + path);
  let body = null;
  try { body = await r.json(); } catch (e) { /* not JSON */ }
  if (generation !== routeGeneration) throw new StaleRoute();
  if (!r.ok) throw new ApiError(r.status, (body && body.error) || r.statusText);
  return body;
}

function parseHash() {
  const h = location.hash.replace(/^#\/?/, "") || "overview";
  const [path, query] = h.split("?");
  const parts = path.split("/");
  return { page: parts[0], arg: decodeURIComponent(parts.slice(1).join("/")), params: new URLSearchParams(query || "") };
}

function go(page, params) {
  const q = params ? new URLSearchParams(params).toString() : "";
  location.hash = "#/" + page + (q ? "?" + q : "");
}

function setActive(page) {
  for (const a of document.querySelectorAll("header nav a")) a.classList.toggle("active", a.dataset.page === page);
}

// ---- pages -----------------------------------------------------------------

async function overview() {
  const s = await api("summary?n=20");
  const o = s.objects;
  let rows = [
    ["file", `${esc(s.file)} (${fmtBytes(s.file_size)})`],
    ["format", `${esc(s.format_version)} heap dump, ${esc(s.go_version || "")} ${esc(s.arch)}, ${s.ptr_size}-byte pointers`],
  ];
  if (s.executable) {
    rows.push(["executable", s.executable.used
      ? `${esc(s.executable.path)}: ${esc(s.executable.go_version)}, ${fmtCount(s.executable.frames_matched)} of ${fmtCount(s.executable.frames_checked)} frames match`
      : `not used: ${esc(s.executable.problem)}`]);
  }
  rows.push(["objects", `${fmtCount(o.count)} objects, ${fmtBytes(o.bytes)}`]);
  rows.push(["reachable", `<span id="reachable-bytes" data-value="${o.reachable_bytes}">${fmtCount(o.reachable_count)} objects, ${fmtBytes(o.reachable_bytes)}</span> (${pct(o.reachable_bytes, o.bytes)} of bytes)`]);
  rows.push(["garbage", `${fmtCount(o.garbage_count)} objects, ${fmtBytes(o.garbage_bytes)} (${pct(o.garbage_bytes, o.bytes)}; unreachable, not yet collected)`]);
  if (o.runtime_metadata_count) {
    rows.push(["metadata", `${fmtCount(o.runtime_metadata_count)} records, ${fmtBytes(o.runtime_metadata_bytes)} (the runtime's bitmaps at the end of spans, written as objects)`]);
  }
  if (s.types) {
    rows.push(["typed", `${fmtCount(s.types.typed_reachable_count)} objects, ${fmtBytes(s.types.typed_reachable_bytes)} (${pct(s.types.typed_reachable_bytes, o.reachable_bytes)} of reachable bytes)`]);
  }
  rows.push(["roots", `${fmtCount(s.roots.goroutines)} goroutines, ${fmtCount(s.roots.stack_frames)} frames, ${fmtCount(s.roots.finalizers)} finalizers`]);
  if (s.roots.leaked_goroutines) {
    rows.push(["leaked", `<a href="#/goroutines?leaked=1" id="leaked-goroutines" data-value="${s.roots.leaked_goroutines}">${fmtCount(s.roots.leaked_goroutines)} goroutines blocked forever</a>, retaining ${fmtBytes(s.roots.leaked_retained)}`]);
  }
  if (s.memstats) {
    const m = s.memstats;
    rows.push(["memstats", `HeapAlloc ${fmtBytes(m.heap_alloc)}, HeapInuse ${fmtBytes(m.heap_inuse)}, HeapSys ${fmtBytes(m.heap_sys)}, Sys ${fmtBytes(m.sys)}, NumGC ${fmtCount(m.num_gc)}`]);
  }
  let html = `<h2>Overview</h2><table class="kv">${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join("")}</table>`;
  html += `<h3>Top retainers</h3><p class="muted">Objects a root holds directly, by the bytes they keep alive.</p>`;
  html += `<table id="retainers"><tr><th class="num">retained</th><th class="num">%</th><th class="num">shallow</th><th>object</th><th>held by</th></tr>`;
  for (const r of s.top_retainers) {
    html += `<tr><td class="num" data-value="${r.retained}">${fmtBytes(r.retained)}</td><td class="num">${pct(r.retained, o.reachable_bytes)}</td>` +
      `<td class="num">${fmtBytes(r.shallow)}</td><td>${labelHtml(r.object)}</td><td>${labelHtml(r.held_by)}</td></tr>`;
  }
  main.innerHTML = html + "</table>";
}

async function histogram(params) {
  const by = params.get("by") || "auto";
  const sort = params.get("sort") || "retained";
  const filter = params.get("filter") || "";
  const offset = Number(params.get("offset") || 0);
  const n = 100;
  const q = new URLSearchParams({ by, sort, n, offset });
  if (filter) q.set("filter", filter);
  const h = await api("top?" + q);
  const total = h.total_shallow || 1;
  const head = (key, text) => `<th class="num sortable${sort === key ? " sorted" : ""}" data-sort="${key}">${text}</th>`;
  let html = `<h2>Histogram</h2><p>Group by <select id="by">${["auto", "type", "site", "shape"].map((b) => `<option${b === by ? " selected" : ""}>${b}</option>`).join("")}</select> ` +
    `filter <input id="filter" value="${esc(filter)}" placeholder="name contains"> <span class="muted">${fmtCount(h.groups)} groups, ${fmtCount(h.total_count)} reachable objects, ${fmtBytes(h.total_shallow)}</span></p>`;
  html += `<table id="histogram"><tr>${head("retained", "retained")}${head("shallow", "shallow")}${head("count", "count")}<th>from</th><th>group</th></tr>`;
  for (const r of h.rows) {
    html += `<tr><td class="num" data-value="${r.retained}">${fmtBytes(r.retained)}</td><td class="num"><span class="bar" style="width:${Math.max(1, 60 * r.shallow / total)}px"></span> ${fmtBytes(r.shallow)}</td>` +
      `<td class="num" data-value="${r.count}">${fmtCount(r.count)}</td><td class="muted">${esc(r.source)}</td><td class="group">${esc(r.name)}</td></tr>`;
  }
  html += `</table><p class="pager">${offset > 0 ? `<button id="prev">previous ${n}</button>` : ""}${h.rows.length === n ? `<button id="next">next ${n}</button>` : ""}</p>`;
  main.innerHTML = html;
  const state = { by, sort, filter, offset };
  const update = (change) => go("top", Object.fromEntries(Object.entries({ ...state, ...change }).filter(([, v]) => v !== "" && v !== 0)));
  for (const th of main.querySelectorAll("th.sortable")) th.onclick = () => update({ sort: th.dataset.sort, offset: 0 });
  main.querySelector("#by").onchange = (e) => update({ by: e.target.value, offset: 0 });
  main.querySelector("#filter").onchange = (e) => update({ filter: e.target.value, offset: 0 });
  const prev = main.querySelector("#prev");
  if (prev) prev.onclick = () => update({ offset: Math.max(0, offset - n) });
  const next = main.querySelector("#next");
  if (next) next.onclick = () => update({ offset: offset + n });
}

// The dominator tree, one level at a time: a row's children load when it opens.
async function domTree(params) {
  main.innerHTML = `<h2>Dominator tree</h2><p class="muted">Each node keeps alive everything below it. Open a row to load its children.</p><div id="tree"></div>`;
  const from = params.get("from");
  await domLevel(main.querySelector("#tree"), from);
}

async function domLevel(container, from, node) {
  const q = new URLSearchParams({ depth: 1, max_children: 50, min_bytes: 0 });
  if (from) q.set("from", from);
  else if (node !== undefined && node !== null) q.set("node", node);
  const d = await api("dom?" + q);
  const [top, ...kids] = d.rows;
  const list = document.createElement("ul");
  for (const r of kids) {
    const li = document.createElement("li");
    const canOpen = r.children > 0;
    li.innerHTML = `${canOpen ? '<button class="open">+</button> ' : ""}<span class="num">${fmtBytes(r.retained)}</span> ${labelHtml(r.node)}` +
      `${r.children ? ` <span class="muted">(${fmtCount(r.children)} children)</span>` : ""}`;
    if (canOpen) {
      const b = li.querySelector("button.open");
      b.onclick = async () => {
        if (b.textContent === "+") {
          b.textContent = "-";
          const sub = document.createElement("div");
          li.appendChild(sub);
          await domLevel(sub, r.node.kind === "object" ? r.node.address : null, r.node.node);
        } else {
          b.textContent = "+";
          li.lastChild.remove();
        }
      };
    }
    list.appendChild(li);
  }
  if (top && top.hidden_children > 0) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = `+${fmtCount(top.hidden_children)} more`;
    list.appendChild(li);
  }
  container.appendChild(list);
}

// Squarified treemap layout (Bruls, Huizing, van Wijk): rows of tiles whose
// aspect ratios stay near 1. Returns [x, y, w, h] per item, in item order.
function squarify(values, x, y, w, h) {
  const total = values.reduce((a, b) => a + b, 0);
  const out = new Array(values.length);
  if (total <= 0 || w <= 0 || h <= 0) return values.map(() => [x, y, 0, 0]);
  const scale = (w * h) / total;
  const items = values.map((v, i) => ({ i, a: v * scale })).filter((it) => it.a > 0);
  let row = [];
  const worst = (r, side) => {
    const s = r.reduce((a, it) => a + it.a, 0);
    let m = 0;
    for (const it of r) m = Math.max(m, (side * side * it.a) / (s * s), (s * s) / (side * side * it.a));
    return m;
  };
  const place = (r) => {
    const s = r.reduce((a, it) => a + it.a, 0);
    if (w >= h) {
      const cw = s / h;
      let cy = y;
      for (const it of r) { const ch = it.a / cw; out[it.i] = [x, cy, cw, ch]; cy += ch; }
      x += cw; w -= cw;
    } else {
      const ch = s / w;
      let cx = x;
      for (const it of r) { const cw = it.a / ch; out[it.i] = [cx, y, cw, ch]; cx += cw; }
      y += ch; h -= ch;
    }
  };
  for (const it of items) {
    const side = Math.min(w, h);
    if (row.length === 0 || worst([...row, it], side) <= worst(row, side)) {
      row.push(it);
    } else {
      place(row);
      row = [it];
    }
  }
  if (row.length) place(row);
  for (let i = 0; i < out.length; i++) if (!out[i]) out[i] = [x, y, 0, 0];
  return out;
}

function packageOf(name) {
  const n = name.replace(/^[\[\]\d*]+/, "").replace(/^(closure|global) /, "");
  const slash = n.lastIndexOf("/");
  const dot = n.indexOf(".", slash + 1);
  return dot > 0 ? n.slice(0, dot) : n.split(" ")[0];
}

function colour(name) {
  let h = 0;
  for (const c of packageOf(name)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${h % 360}, 55%, 78%)`;
}

// The treemap of the dominator tree below `from` (the whole heap without it):
// two levels, areas by retained bytes, coloured by package. A click zooms
// into an object; "open" shows it.
async function treemap(params) {
  const from = params.get("from");
  const node = params.get("node");
  const q = new URLSearchParams({ depth: 2, max_children: 40, min_bytes: 0 });
  if (from) q.set("from", from);
  if (node) q.set("node", node);
  const d = await api("dom?" + q);
  const [top] = d.rows;
  main.innerHTML = `<h2>Treemap</h2><p>${from || node ? `<a href="#/treemap">whole heap</a> › ${labelHtml(top.node)} ` : ""}<span class="muted">areas are retained bytes; click a tile to zoom in, its name to open the object</span></p><div id="treemap"></div>`;
  const box = main.querySelector("#treemap");
  // Rows in pre-order: depth 1 are tiles, depth 2 their inner tiles.
  const tiles = [];
  for (const r of d.rows) {
    if (r.depth === 1) tiles.push({ row: r, kids: [] });
    else if (r.depth === 2 && tiles.length) tiles[tiles.length - 1].kids.push(r);
  }
  // `whole` is the retained size of the node whose children these are: its
  // own bytes and the children not shown keep their share of the area, empty.
  const draw = (parent, entries, W, H, depth, whole) => {
    const values = entries.map((e) => e.row.retained);
    const shown = values.reduce((a, b) => a + b, 0);
    const rects = squarify(whole > shown ? [...values, whole - shown] : values, 0, 0, W, H);
    entries.forEach((e, i) => {
      const [x, y, w, h] = rects[i];
      if (w < 2 || h < 2) return;
      const t = document.createElement("div");
      t.className = "tile";
      t.style.cssText = `left:${x}px;top:${y}px;width:${w}px;height:${h}px;background:${colour(e.row.node.name)}`;
      t.title = `${e.row.node.name}\n${fmtBytes(e.row.retained)} retained`;
      t.dataset.retained = e.row.retained;
      if (e.row.node.address) t.dataset.address = e.row.node.address;
      t.dataset.node = e.row.node.node;
      t.dataset.children = e.row.children;
      const name = e.row.node.kind === "object"
        ? `<a class="open" href="#/obj/${esc(e.row.node.address)}">${esc(e.row.node.name)}</a>` : esc(e.row.node.name);
      if (w > 40 && h > 14) t.innerHTML = `${name} <span class="muted">${fmtBytes(e.row.retained)}</span>`;
      t.onclick = (ev) => {
        if (ev.target.closest("a")) return;
        ev.stopPropagation();
        if (e.row.children === 0) return;
        if (e.row.node.kind === "object") go("treemap", { from: e.row.node.address });
        else go("treemap", { node: e.row.node.node });  // a root: no address
      };
      parent.appendChild(t);
      if (depth === 1 && e.kids.length && w > 60 && h > 40) {
        const inner = document.createElement("div");
        inner.style.cssText = `position:absolute;left:2px;top:16px;width:${w - 6}px;height:${h - 20}px`;
        t.appendChild(inner);
        draw(inner, e.kids.map((k) => ({ row: k, kids: [] })), w - 6, h - 20, 2, e.row.retained);
      }
    });
  };
  draw(box, tiles, box.clientWidth, box.clientHeight, 1, top.retained);
  box.dataset.view = location.hash;  // drawn: tests wait for this
}

// Retained bytes by chain of types (the dominator tree named by type): an
// icicle, widths are retained bytes, the roots at the top. Click a frame to
// zoom into it (the zoom is a path of child indices in the URL).
async function flamePage(params) {
  const f = await api("flame");
  const zoom = (params.get("zoom") || "").split(".").filter((x) => x !== "").map(Number);
  let node = f.root;
  const trail = [node];
  for (const i of zoom) {
    if (!node.children[i]) break;
    node = node.children[i];
    trail.push(node);
  }
  const crumbs = trail.map((n, i) => i === trail.length - 1 ? esc(n.name)
    : `<a href="#/flame${i ? "?zoom=" + zoom.slice(0, i).join(".") : ""}">${esc(n.name)}</a>`).join(" › ");
  main.innerHTML = `<h2>Flame graph</h2><p>${crumbs} <span class="muted">${fmtBytes(node.value)} retained; widths are retained bytes by chain of dominators, named by type</span></p><div id="flame"></div>`;
  const box = main.querySelector("#flame");
  const W = box.clientWidth;
  let maxDepth = 0;
  const draw = (n, x, w, depth, path) => {
    if (w < 1) return;
    maxDepth = Math.max(maxDepth, depth);
    const d = document.createElement("div");
    d.className = "frame";
    d.style.cssText = `left:${x}px;top:${depth * 20}px;width:${Math.max(w - 1, 1)}px;background:${colour(n.name)}`;
    d.title = `${n.name}\n${fmtBytes(n.value)} retained, ${fmtBytes(n.self)} in ${fmtCount(n.count)} objects here`;
    d.dataset.value = n.value;
    d.dataset.zoom = path.join(".");
    if (w > 30) d.textContent = `${n.name} ${fmtBytes(n.value)}`;
    d.onclick = () => go("flame", path.length ? { zoom: path.join(".") } : {});
    box.appendChild(d);
    let cx = x;
    n.children.forEach((c, i) => {
      const cw = (w * c.value) / (n.value || 1);
      draw(c, cx, cw, depth + 1, [...path, i]);
      cx += cw;
    });
  };
  draw(node, 0, W, 0, zoom);
  box.style.height = `${(maxDepth + 1) * 20 + 4}px`;
}

async function objectPage(addr) {
  const [o, p] = await Promise.all([api("obj?" + new URLSearchParams({ addr, referrers: 50 })), api("paths?" + new URLSearchParams({ addr, n: 5 }))]);
  let html = `<h2>${esc(o.type || o.object.name)} <span class="muted mono">${esc(o.object.address)}</span></h2>`;
  html += `<table class="kv"><tr><td>name</td><td>${esc(o.object.name)} <span class="muted">(${esc(o.object.source)})</span></td></tr>` +
    `<tr><td>size</td><td>${fmtBytes(o.size)} <span class="muted">${esc(o.shape)}</span></td></tr>` +
    `<tr><td>retained</td><td id="retained" data-value="${o.retained}">${o.reachable ? fmtBytes(o.retained) : "garbage: unreachable"}</td></tr>` +
    `<tr><td>dominator</td><td>${labelHtml(o.immediate_dominator)}</td></tr></table>`;
  if (o.fields && o.fields.length) {
    html += `<h3>Fields</h3><table id="fields"><tr><th class="num">offset</th><th>field</th><th>type</th><th>value</th></tr>`;
    for (const f of o.fields) {
      const v = f.points_to ? `<a href="#/obj/${esc(f.points_to)}">${esc(f.value)}</a>` : esc(f.value);
      html += `<tr><td class="num">+${f.offset}</td><td class="mono">${esc(f.path || "(value)")}</td><td class="mono">${esc(f.type)}</td><td>${v}</td></tr>`;
    }
    html += `</table>`;
  }
  html += `<h3>Paths from GC roots</h3><div id="paths">`;
  p.paths.forEach((path, i) => {
    html += `<ol class="path" data-index="${i}">` + path.map((s) => `<li>${labelHtml(s.node)}${slotHtml(s.node, s.field, s.offset)}</li>`).join("") + `</ol>`;
  });
  html += `</div><h3>Pointers</h3><table><tr><th class="num">offset</th><th>field</th><th>target</th></tr>`;
  for (const r of o.pointers) {
    html += `<tr><td class="num">+${r.offset}</td><td class="mono">${esc(r.field || "")}</td><td>${r.target.kind === "non-heap" ? `<span class="muted mono">${esc(r.value)} (outside the heap)</span>` : labelHtml(r.target)}</td></tr>`;
  }
  html += `</table><h3>Referrers <span class="muted">(${fmtCount(o.referrer_count)})</span></h3><table>`;
  for (const r of o.referrers) html += `<tr><td>${labelHtml(r.holder)}</td><td class="mono">${esc(r.field || (r.offset !== undefined && !r.holder.global ? "+" + r.offset : ""))}</td></tr>`;
  html += `</table><h3>Allocated at</h3>`;
  html += o.alloc_stack.length
    ? `<ol>${o.alloc_stack.map((f) => `<li><code>${esc(f.function)}</code>${f.inlined ? " <span class=muted>(inlined)</span>" : ""} <span class="muted">${esc(f.file)}:${f.line}</span></li>`).join("")}</ol>`
    : `<p class="muted">No allocation sample (set runtime.MemProfileRate = 1 to record every allocation).</p>`;
  html += `<h3>Contents</h3><pre class="mono">${hexDump(o.contents_hex, o.object.address)}</pre>`;
  main.innerHTML = html;
}

function hexDump(hex, base) {
  let out = "";
  const start = BigInt(base);
  for (let i = 0; i < hex.length; i += 32) {
    const line = hex.slice(i, i + 32).replace(/(..)/g, "$1 ");
    out += "0x" + (start + BigInt(i / 2)).toString(16) + "  " + line + "\n";
  }
  return esc(out);
}

// Goroutines grouped by identical stacks, the biggest retainers first.
// A goroutine blocked forever (goheap goroutines --leaked) is badged, and
// the "leaked" box shows only those.
async function goroutinesPage(params) {
  const user = params.get("user") === "1";
  const leaked = params.get("leaked") === "1";
  const g = await api("goroutines?" + new URLSearchParams({ sort: "retained", user: user ? "true" : "false", leaked: leaked ? "true" : "false" }));
  const groups = new Map();
  for (const r of g.goroutines) {
    const key = (r.frames || []).map((f) => f.function + ":" + (f.line || "")).join("|") + "#" + r.status_name + r.wait_reason + (r.leaked ? "#leaked" : "");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const flags = () => Object.assign({}, main.querySelector("#user").checked ? { user: 1 } : {}, main.querySelector("#leaked").checked ? { leaked: 1 } : {});
  let html = `<h2>Goroutines</h2><p><label><input type="checkbox" id="user"${user ? " checked" : ""}> hide the runtime's own</label> ` +
    `<label><input type="checkbox" id="leaked"${leaked ? " checked" : ""}> only the leaked (blocked forever)</label> ` +
    `<span class="muted">${fmtCount(g.goroutines.length)} goroutines in ${fmtCount(groups.size)} groups of identical stacks</span></p>`;
  const sorted = [...groups.values()].sort((a, b) => b.reduce((s, x) => s + x.retained, 0) - a.reduce((s, x) => s + x.retained, 0));
  for (const list of sorted) {
    const r = list[0];
    const retained = list.reduce((s, x) => s + x.retained, 0);
    html += `<details class="goroutine" data-id="${r.id}"><summary>${list.length > 1 ? `<b>${list.length}×</b> ` : ""}goroutine ${list.map((x) => x.id).slice(0, 8).join(", ")}${list.length > 8 ? ", …" : ""} ` +
      `[${esc(r.status_name)}${r.wait_reason ? ": " + esc(r.wait_reason) : ""}] ` +
      (r.leaked ? `<span class="badge leaked" title="blocked forever: nothing that can run reaches what it waits on">leaked</span> ` : "") +
      `<span class="num">retains ${fmtBytes(retained)}</span></summary><ol class="stack">`;
    for (const f of r.frames || []) {
      for (const inl of f.inlined || []) html += `<li><code>${esc(inl.function)}</code> <span class="muted">${esc(inl.file)}:${inl.line} (inlined)</span></li>`;
      html += `<li><code>${esc(f.function)}</code> <span class="muted">${f.file ? esc(f.file) + ":" + f.line : ""}</span>${f.retained ? ` retains ${fmtBytes(f.retained)}` : ""}</li>`;
    }
    if (r.created_by) html += `<li class="muted">created by ${esc(r.created_by.function)} at ${esc(r.created_by.file)}:${r.created_by.line}</li>`;
    html += `</ol></details>`;
  }
  main.innerHTML = html;
  main.querySelector("#user").onchange = () => go("goroutines", flags());
  main.querySelector("#leaked").onchange = () => go("goroutines", flags());
}

// Leak suspects (goheap suspects): what retains a large share of the heap,
// where it piles up, the path that holds it and what accumulates there.
async function suspectsPage(params) {
  const threshold = params.get("threshold") || "10";
  const s = await api("suspects?" + new URLSearchParams({ threshold, limit: 20 }));
  let html = `<h2>Leak suspects</h2><p>Objects and groups retaining at least <input id="threshold" size="4" value="${esc(threshold)}">% of the reachable heap ` +
    `<span class="muted">(${fmtBytes(s.threshold_bytes)} of ${fmtBytes(s.reachable_bytes)}; ${fmtCount(s.total)} suspects, grouped by ${esc(s.by)})</span></p>`;
  if (!s.suspects.length) html += `<p id="no-suspects" class="muted">No suspects: nothing retains that much. Try a lower threshold.</p>`;
  for (const x of s.suspects) {
    const a = x.accumulation_point;
    html += `<section class="suspect" data-rank="${x.rank}" data-retained="${x.retained}">` +
      `<h3>Suspect ${x.rank}${x.kind === "group" ? " (group)" : ""} <span class="muted">${fmtBytes(x.retained)}, ${(100 * x.share).toFixed(1)}%</span></h3>` +
      `<p class="description">${esc(x.description)}</p><table class="kv">`;
    if (x.kind === "group") {
      html += `<tr><td>group</td><td>${esc(x.group.name)} <span class="muted">(${esc(x.group.source)}, ${fmtCount(x.group.count)} objects)</span></td></tr>` +
        `<tr><td>biggest member</td><td class="suspect-object">${labelHtml(x.object)}</td></tr>` +
        `<tr><td>held by</td><td>${x.holders.map((h) => `${esc(h.holder)} <span class="muted">(${fmtCount(h.members)})</span>`).join(", ")}</td></tr>`;
    } else {
      html += `<tr><td>object</td><td class="suspect-object">${labelHtml(x.object)}</td></tr>`;
    }
    html += `<tr><td>accumulation point</td><td class="accumulation">${labelHtml(a.node)} <span class="muted">holds ${fmtBytes(a.retained)}, ${fmtCount(a.children)} children</span></td></tr></table>`;
    html += `<p class="muted">Shortest path from a GC root${x.kind === "group" ? " to the biggest member" : ""}:</p><ol class="path">` +
      x.path.map((st) => `<li>${labelHtml(st.node)}${slotHtml(st.node, st.field, st.offset)}</li>`).join("") + `</ol>`;
    const acc = x.accumulated;
    html += `<p class="muted">It accumulates ${fmtCount(acc.count)} objects, ${fmtBytes(acc.bytes)}, in ${fmtCount(acc.groups)} ${s.by === "type" ? "type" : "group"}${acc.groups === 1 ? "" : "s"}:</p>` +
      `<table class="accumulated"><tr><th class="num">count</th><th class="num">bytes</th><th>${s.by === "type" ? "type" : "group"}</th></tr>` +
      acc.top.map((t) => `<tr><td class="num" data-value="${t.count}">${fmtCount(t.count)}</td><td class="num" data-value="${t.bytes}"><span class="bar" style="width:${Math.max(1, 60 * t.bytes / (acc.bytes || 1))}px"></span> ${fmtBytes(t.bytes)}</td>` +
        `<td><a href="#/top?${new URLSearchParams({ filter: t.name })}">${esc(t.name)}</a></td></tr>`).join("") + `</table>`;
    for (const g of x.merged_groups || []) {
      html += `<p class="muted">Also a group suspect found here: ${fmtCount(g.count)} objects of ${esc(g.name)}, retaining ${fmtBytes(g.retained)}.</p>`;
    }
    html += `</section>`;
  }
  // Goroutines blocked forever leak whatever they retain: no threshold.
  if ((s.leaked_goroutines || []).length) {
    html += `<section id="leaked-goroutine-groups"><h3>Goroutines blocked forever <a class="muted" href="#/goroutines?leaked=1">(see them)</a></h3>` +
      `<table><tr><th class="num">goroutines</th><th class="num">retained together</th><th>blocked in</th></tr>` +
      s.leaked_goroutines.map((g) => `<tr><td class="num" data-value="${g.goroutines}">${fmtCount(g.goroutines)}</td>` +
        `<td class="num" data-value="${g.retained}">${fmtBytes(g.retained)}</td><td><code>${esc(g.blocked_in || "(runtime)")}</code></td></tr>`).join("") +
      `</table></section>`;
  }
  main.innerHTML = html;
  main.querySelector("#threshold").onchange = (e) => go("suspects", { threshold: e.target.value.trim() || "10" });
}

// ---- routing ---------------------------------------------------------------

// While the server loads the dump (/api/status), a progress line.
async function waitForLoad() {
  const generation = routeGeneration;
  for (;;) {
    if (generation !== routeGeneration) throw new StaleRoute();
    let s = null;
    try { s = await api("status"); } catch (e) { /* not up yet */ }
    if (s && s.state === "ready") return;
    if (s && s.state === "failed") throw new ApiError(500, "the dump could not be loaded: " + s.error);
    main.innerHTML = `<p id="loading">Loading the dump… ${s ? esc(s.phase || "") + (s.fraction ? " " + (100 * s.fraction).toFixed(0) + "%" : "") : ""}</p>`;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function route() {
  routeGeneration++;
  const { page, arg, params } = parseHash();
  setActive(page === "obj" ? "" : page);
  try {
    switch (page) {
      case "top": await histogram(params); break;
      case "dom": await domTree(params); break;
      case "treemap": await treemap(params); break;
      case "obj": await objectPage(arg); break;
      case "goroutines": await goroutinesPage(params); break;
      case "flame": await flamePage(params); break;
      case "search": await searchPage(params); break;
      case "suspects": await suspectsPage(params); break;
      case "diff": await diffPage(params); break;
      case "dups": await dupsPage(params); break;
      case "waste": await wastePage(params); break;
      case "memory": await memoryPage(params); break;
      case "query": await queryPage(params); break;
      default: await overview();
    }
  } catch (e) {
    if (e instanceof StaleRoute) return;  // another page is being drawn
    if (e.status === 503) {
      try {
        await waitForLoad();
        return route();
      } catch (failed) {
        if (failed instanceof StaleRoute) return;
        e = failed;
      }
    }
    main.innerHTML = `<p class="error">${esc(e.message)}</p>`;
  }
}

// Search: an address opens its object; a name finds types, sites and globals.
async function searchPage(params) {
  const q = params.get("q") || "";
  const r = await api("search?" + new URLSearchParams({ q, n: 30 }));
  let html = `<h2>Search: ${esc(q)}</h2>`;
  if (r.object) html += `<h3>Object</h3><p id="found-object">${labelHtml(r.object)}</p>`;
  html += `<h3>Groups <span class="muted">(by ${esc(r.by)})</span></h3>`;
  html += r.groups.length
    ? `<table id="found-groups"><tr><th class="num">retained</th><th class="num">count</th><th>group</th></tr>` +
      r.groups.map((g) => `<tr><td class="num">${fmtBytes(g.retained)}</td><td class="num">${fmtCount(g.count)}</td><td><a href="#/top?${new URLSearchParams({ filter: g.name })}">${esc(g.name)}</a></td></tr>`).join("") + `</table>`
    : `<p class="muted">none</p>`;
  html += `<h3>Global variables</h3>`;
  html += r.globals.length
    ? `<table id="found-globals"><tr><th>global</th><th>type</th><th>points to</th></tr>` +
      r.globals.map((g) => `<tr><td class="mono">${esc(g.name)}</td><td class="mono">${esc(g.type || "")}</td><td>${g.points_to.map(labelHtml).join("<br>")}${g.pointer_count > g.points_to.length ? `<br><span class="muted">+${fmtCount(g.pointer_count - g.points_to.length)} more</span>` : ""}</td></tr>`).join("") + `</table>`
    : `<p class="muted">none${r.globals ? "" : ""}</p>`;
  main.innerHTML = html;
}

// ---- diff (serve --base OLD) -----------------------------------------------

function fmtSigned(n, fmt) { return (n > 0 ? "+" : n < 0 ? "-" : "") + fmt(Math.abs(n)); }

// What grew since the base dump, by group, and the new objects by holder.
async function diffPage(params) {
  const by = params.get("by") || "auto";
  const sort = params.get("sort") || "retained";
  const filter = params.get("filter") || "";
  const offset = Number(params.get("offset") || 0);
  const limit = 50;
  const q = new URLSearchParams({ by, sort, limit, offset });
  if (filter) q.set("filter", filter);
  const d = await api("diff?" + q);
  const head = (key, text) => `<th class="num sortable${sort === key ? " sorted" : ""}" data-sort="${key}">${text}</th>`;
  let html = `<h2>Diff</h2><p class="muted">OLD <span class="mono">${esc(d.old.file)}</span>: ${fmtCount(d.old.reachable_count)} objects, ${fmtBytes(d.old.reachable_bytes)}; ` +
    `NEW <span class="mono">${esc(d.new.file)}</span>: ${fmtCount(d.new.reachable_count)} objects, ${fmtBytes(d.new.reachable_bytes)}</p>`;
  for (const w of d.warnings) html += `<p class="error diff-warning">${esc(w)}</p>`;
  html += `<p>Group by <select id="by">${["auto", "type", "site", "shape"].map((b) => `<option${b === by ? " selected" : ""}>${b}</option>`).join("")}</select> ` +
    `filter <input id="filter" value="${esc(filter)}" placeholder="name contains"> <span class="muted">${fmtCount(d.groups)} groups (by ${esc(d.by)})</span></p>`;
  html += `<h3>Growth by group</h3><table id="diff-groups"><tr>${head("retained", "+retained")}${head("shallow", "+shallow")}${head("count", "+count")}` +
    `<th class="num">old count</th><th class="num">new count</th><th>group</th></tr>`;
  for (const r of d.rows) {
    html += `<tr class="${r[sort + "_delta"] < 0 ? "shrank" : "grew"}"><td class="num" data-value="${r.retained_delta}">${fmtSigned(r.retained_delta, fmtBytes)}</td>` +
      `<td class="num" data-value="${r.shallow_delta}">${fmtSigned(r.shallow_delta, fmtBytes)}</td><td class="num" data-value="${r.count_delta}">${fmtSigned(r.count_delta, fmtCount)}</td>` +
      `<td class="num">${fmtCount(r.old_count)}</td><td class="num">${fmtCount(r.new_count)}</td><td class="group"><a href="#/top?${new URLSearchParams({ by: d.by, filter: r.name })}">${esc(r.name)}</a></td></tr>`;
  }
  html += `</table>`;
  const n = d.new_objects;
  html += `<h3>New since OLD <span class="muted">${fmtCount(n.count)} objects, ${fmtBytes(n.bytes)}</span></h3>`;
  html += `<table id="diff-new"><tr><th class="num">bytes</th><th class="num">count</th><th>new objects</th><th>held by</th><th>reached from</th></tr>`;
  for (const r of n.rows) {
    const holder = r.holders > 1 && r.function
      ? `${fmtCount(r.holders)} ${r.holder.kind === "goroutine" ? "goroutines" : "frames"} of <span class="mono">${esc(r.function)}</span>`
      : labelHtml(r.holder);
    html += `<tr><td class="num" data-value="${r.bytes}">${fmtBytes(r.bytes)}</td><td class="num" data-value="${r.count}">${fmtCount(r.count)}</td>` +
      `<td>${esc(r.group)}</td><td>${holder}</td><td>${r.reached_from ? labelHtml(r.reached_from) : ""}</td></tr>`;
  }
  html += `</table><p class="pager">${offset > 0 ? `<button id="prev">previous ${limit}</button>` : ""}` +
    `${d.rows.length === limit || n.rows.length === limit ? `<button id="next">next ${limit}</button>` : ""}</p>`;
  main.innerHTML = html;
  const state = { by, sort, filter, offset };
  const update = (change) => go("diff", Object.fromEntries(Object.entries({ ...state, ...change }).filter(([, v]) => v !== "" && v !== 0)));
  for (const th of main.querySelectorAll("th.sortable")) th.onclick = () => update({ sort: th.dataset.sort, offset: 0 });
  main.querySelector("#by").onchange = (e) => update({ by: e.target.value, offset: 0 });
  main.querySelector("#filter").onchange = (e) => update({ filter: e.target.value, offset: 0 });
  const prev = main.querySelector("#prev");
  if (prev) prev.onclick = () => update({ offset: Math.max(0, offset - limit) });
  const next = main.querySelector("#next");
  if (next) next.onclick = () => update({ offset: offset + limit });
}

// The Diff page's link shows only when the server has a base dump.
(async function showDiffLink() {
  for (;;) {
    let s = null;
    try { s = await api("status"); } catch (e) { /* not up yet */ }
    if (s && s.state !== "loading") {
      document.getElementById("nav-diff").hidden = !(s.state === "ready" && s.has_base);
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
})();

document.getElementById("search").onsubmit = (e) => {
  e.preventDefault();
  const q = e.target.q.value.trim();
  if (!q) return;
  go("search", { q });
};
window.addEventListener("hashchange", route);
route();

// ---- duplicates and waste ---------------------------------------------------

function addrLink(a) { return `<a class="mono" href="#/obj/${esc(a)}">${esc(a)}</a>`; }

// Duplicate strings, []byte and identical objects, by wasted bytes.
async function dupsPage(params) {
  const kind = params.get("kind") || "all";
  const d = await api("dups?" + new URLSearchParams({ kind, n: 100 }));
  const t = d.totals;
  let html = `<h2>Duplicates</h2><p>Kind <select id="kind">${["all", "strings", "bytes", "objects"].map((k) => `<option${k === kind ? " selected" : ""}>${k}</option>`).join("")}</select> ` +
    `<span class="muted">wasted: strings ${fmtBytes(t.string.wasted)} in ${fmtCount(t.string.groups)} groups, bytes ${fmtBytes(t.bytes.wasted)} in ${fmtCount(t.bytes.groups)}, objects ${fmtBytes(t.object.wasted)} in ${fmtCount(t.object.groups)}` +
    `${d.typed ? "" : " (without the executable: whole objects compared, strings and []byte not told apart)"}</span></p>`;
  html += `<table id="dups"><tr><th class="num">wasted</th><th class="num">copies</th><th class="num">size</th><th>kind</th><th>type / group</th><th>contents</th><th>held by</th></tr>`;
  for (const g of d.groups) {
    const holders = g.holders.map((h) => `${esc(h.name)} <span class="muted">(${fmtCount(h.count)})</span>`).join("<br>");
    html += `<tr><td class="num">${fmtBytes(g.wasted)}</td><td class="num">${fmtCount(g.copies)}</td><td class="num">${fmtBytes(g.size)}</td><td>${esc(g.kind)}</td>` +
      `<td class="group">${esc(g.name)}</td><td><details><summary class="mono preview">${esc(g.preview)}</summary>${g.addresses.map(addrLink).join(" ")}${g.copies > g.addresses.length ? " …" : ""}</details></td><td>${holders}</td></tr>`;
  }
  main.innerHTML = html + `</table><p class="muted">${fmtCount(d.groups.length)} of ${fmtCount(d.matching_groups)} groups</p>`;
  main.querySelector("#kind").onchange = (e) => go("dups", e.target.value === "all" ? {} : { kind: e.target.value });
}

// Size-class rounding, arrays kept by small slices, sparse maps, garbage.
async function wastePage() {
  const w = await api("waste?" + new URLSearchParams({ n: 50 }));
  const needs = (s) => s.available ? "" : `<p class="muted">${esc(s.why)}</p>`;
  const flag = (on) => on ? `<span class="flag" title="flagged">!</span>` : "";
  let html = `<h2>Waste</h2>`;
  html += `<h3>Size-class rounding: ${fmtBytes(w.rounding.wasted)}</h3>${needs(w.rounding)}`;
  if (w.rounding.available) {
    html += `<p class="muted">${fmtCount(w.rounding.objects)} typed objects; malloc headers (not counted): ${fmtBytes(w.rounding.malloc_header_bytes)}</p>`;
    html += `<table id="rounding"><tr><th class="num">wasted</th><th class="num">count</th><th class="num">type size</th><th class="num">slot</th><th class="num">header</th><th>type</th></tr>`;
    for (const r of w.rounding.rows) html += `<tr><td class="num">${fmtBytes(r.wasted)}</td><td class="num">${fmtCount(r.count)}</td><td class="num">${r.type_size}</td><td class="num">${r.slot_size}</td><td class="num">${r.malloc_header}</td><td class="group">${esc(r.type)}</td></tr>`;
    html += `</table>`;
  }
  html += `<h3>Slices keeping arrays alive: ${fmtBytes(w.slices.hidden_bytes)}</h3>${needs(w.slices)}`;
  if (w.slices.available) {
    html += `<table id="slices"><tr><th></th><th class="num">hidden</th><th class="num">size</th><th class="num">slices</th><th>array</th><th>type</th><th>held by</th></tr>`;
    for (const r of w.slices.rows) html += `<tr><td>${flag(r.flagged)}</td><td class="num">${fmtBytes(r.hidden)}</td><td class="num">${fmtBytes(r.size)}</td><td class="num">${fmtCount(r.slices)}</td><td>${addrLink(r.address)}</td><td class="group">${esc(r.type)}</td><td>${esc(r.holder)}</td></tr>`;
    html += `</table>`;
  }
  html += `<h3>Maps: ${fmtCount(w.maps.sparse)} sparse of ${fmtCount(w.maps.maps)}, keeping ${fmtBytes(w.maps.sparse_storage)}</h3>${needs(w.maps)}`;
  if (w.maps.available) {
    html += `<table id="maps"><tr><th></th><th class="num">storage</th><th class="num">len</th><th class="num">capacity</th><th>map</th><th>type</th><th>held by</th></tr>`;
    for (const r of w.maps.rows) html += `<tr><td>${flag(r.sparse)}</td><td class="num">${fmtBytes(r.storage)}</td><td class="num">${fmtCount(r.len)}</td><td class="num">${fmtCount(r.capacity)}</td><td>${addrLink(r.address)}</td><td class="group">${esc(r.type)}</td><td>${esc(r.holder)}</td></tr>`;
    html += `</table>`;
  }
  html += `<h3>Garbage: ${fmtCount(w.garbage.objects)} objects, ${fmtBytes(w.garbage.bytes)}</h3>`;
  html += `<table id="garbage"><tr><th class="num">bytes</th><th class="num">count</th><th>from</th><th>group</th></tr>`;
  for (const r of w.garbage.rows) html += `<tr><td class="num">${fmtBytes(r.bytes)}</td><td class="num">${fmtCount(r.count)}</td><td class="muted">${esc(r.source)}</td><td class="group">${esc(r.name)}</td></tr>`;
  main.innerHTML = html + `</table>`;
}

// Where the process's memory is (goheap memory): a bar per category, biggest
// first, with memstats' figure beside those that have one.
async function memoryPage() {
  const m = await api("memory");
  const cats = m.categories.slice().sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1));
  let html = `<h2>Memory</h2><p>${fmtBytes(m.total)} from ${esc(m.source)}` +
    (m.resident !== null ? `, ${fmtBytes(m.resident)} resident` : "") + `: ${esc(m.total_is)}</p>`;
  html += `<table id="memory"><tr><th class="num">bytes</th><th class="num">resident</th><th>share</th><th>category</th><th class="num">memstats</th><th>evidence</th></tr>`;
  for (const c of cats) {
    const share = c.bytes !== null && m.total > 0 ? c.bytes / m.total : 0;
    const ms = c.memstats ? `<span title="${esc(c.memstats.field)}">${fmtBytes(c.memstats.bytes)}</span>` +
      (c.memstats.differs ? ` <span class="flag" title="differs by more than 10%">!</span>` : "") : "";
    const value = c.bytes === null ? "" : ` data-value="${c.bytes}"`;
    html += `<tr data-category="${esc(c.name)}"><td class="num"${value}>${c.bytes === null ? "unknown" : fmtBytes(c.bytes)}</td>` +
      `<td class="num">${c.resident === null ? "-" : fmtBytes(c.resident)}</td>` +
      (c.bytes === null ? `<td class="muted">-</td>` :
        `<td style="white-space:nowrap"><span class="bar" style="width:${(200 * share).toFixed(0)}px"></span> ${(100 * share).toFixed(1)}%</td>`) +
      `<td class="group">${esc(c.name)}</td><td class="num">${ms}</td><td class="muted">${esc(c.detail)}</td></tr>`;
  }
  html += `</table>`;
  for (const n of m.notes) html += `<p class="muted">note: ${esc(n)}</p>`;
  for (const a of m.advice) html += `<p class="warning">${esc(a)}</p>`;
  main.innerHTML = html;
}

// ---- SQL (docs/sql.md) --------------------------------------------------------

// The cookbook of docs/sql.md (served as /sql.md): [{title, sql}], in order.
let cookbookCache = null;
async function cookbook() {
  if (cookbookCache) return cookbookCache;
  const r = await fetch("/sql.md");
  const text = r.ok ? await r.text() : "";
  const part = text.slice(Math.max(0, text.indexOf("## Cookbook")));
  const out = [];
  const re = /### (.+)\n[\s\S]*?```sql\n([\s\S]*?)```/g;
  for (let m; (m = re.exec(part)) !== null;) out.push({ title: m[1].trim(), sql: m[2].trim() });
  cookbookCache = out;
  return out;
}

// A cell: addresses link to their object; NULL is shown as such.
function sqlCell(column, v) {
  if (v === null) return `<td class="muted">NULL</td>`;
  if (typeof v === "number") {
    if (/^(address|pointer)$|_address$/.test(column) && v > 0) return `<td>${addrLink("0x" + v.toString(16))}</td>`;
    return `<td class="num">${esc(v)}</td>`;
  }
  if (/^0x[0-9a-f]+$/.test(v)) return `<td>${addrLink(v)}</td>`;
  return `<td>${esc(v)}</td>`;
}

// SQL over the heap: the statement in the URL (#/query?q=...), run read-only
// by /api/sql, with the cookbook's questions as examples.
async function queryPage(params) {
  const sql = params.get("q") || "";
  const [book, status] = await Promise.all([cookbook(), api("status")]);
  const examples = book.filter((e) => status.has_base || !/\bold[._]/.test(e.sql));
  main.innerHTML = `<h2>Query</h2>` +
    `<p class="muted">SQL over the heap's tables (objects, refs, roots, fields, strings, goroutines, frames, globals, types, sites; paths(), subtree(), dominators()): see docs/sql.md. Read-only; Ctrl+Enter runs.</p>` +
    `<form id="sql-form"><textarea id="sql" spellcheck="false" aria-label="SQL">${esc(sql)}</textarea><p><button type="submit">Run</button> <span id="sql-status" class="muted"></span></p></form>` +
    `<details${sql ? "" : " open"}><summary>Examples (the cookbook)</summary><ol id="examples">${examples.map((e, i) => `<li><a data-example="${i}">${esc(e.title.replace(/^\d+\.\s*/, ""))}</a></li>`).join("")}</ol></details>` +
    `<div id="sql-output"></div>`;
  const area = main.querySelector("#sql");
  const run = () => go("query", { q: area.value });
  main.querySelector("#sql-form").onsubmit = (e) => { e.preventDefault(); run(); };
  area.onkeydown = (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } };
  for (const a of main.querySelectorAll("#examples a")) {
    a.onclick = () => go("query", { q: examples[Number(a.dataset.example)].sql });
  }
  if (!sql.trim()) return;
  const out = main.querySelector("#sql-output");
  const statusLine = main.querySelector("#sql-status");
  statusLine.textContent = "running…";
  let d;
  try {
    d = await api("sql?" + new URLSearchParams({ q: sql }));
  } catch (e) {
    statusLine.textContent = "";
    out.innerHTML = `<p class="error" id="sql-error">${esc(e.message)}</p>`;
    return;
  }
  statusLine.textContent = "";
  let html = "";
  for (const r of d.results) {
    html += `<table id="sql-results"><tr>${r.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
    for (const row of r.rows) html += `<tr>${row.map((v, i) => sqlCell(r.columns[i], v)).join("")}</tr>`;
    html += `</table><p class="muted">${fmtCount(r.row_count)} rows in ${(r.seconds * 1000).toFixed(1)} ms${r.truncated ? ` (stopped at ${fmtCount(d.max_rows)} rows)` : ""}</p>`;
  }
  out.innerHTML = html;
}
