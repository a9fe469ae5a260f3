// Browser test of `goheap report`'s page (tests/cli/report_test.cpp runs it):
// opens the HTML file in Debian's chromium through playwright-core with
// every network request refused, and checks that every number the page
// shows is the JSON file's number at the path it names, that the text shown
// says the same number (counts exactly, bytes to the rounding of the unit
// shown), and that each table has the JSON's rows.
//
//   node report_check.js PLAYWRIGHT_CORE_DIR CHROMIUM REPORT.html REPORT.json SCREENSHOT.png
"use strict";
const fs = require("fs");
const [, , pwDir, chromiumPath, htmlPath, jsonPath, shot] = process.argv;
const { chromium } = require(pwDir);

function check(cond, what) {
  if (!cond) throw new Error("check failed: " + what);
}

function at(doc, path) {
  let v = doc;
  for (const part of path.split(".")) v = v === undefined || v === null ? undefined : v[part];
  return v;
}

// "3.02 MiB" -> [value, precision of the text in bytes].
function parseBytes(text) {
  const m = /^(-?)\+?([0-9.]+) (B|KiB|MiB|GiB|TiB)$/.exec(text.trim().replace(/^\+/, ""));
  if (!m) return null;
  const scale = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 }[m[3]];
  const decimals = (m[2].split(".")[1] || "").length;
  const sign = m[1] === "-" ? -1 : 1;
  return [sign * Number(m[2]) * scale, 0.5 * 10 ** -decimals * scale];
}

(async () => {
  const doc = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const requests = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file://")) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto("file://" + htmlPath);
  await page.waitForSelector("body[data-rendered=true]", { timeout: 20000 });

  const cells = await page.$$eval("[data-path]", (els) => els.map((e) => ({
    path: e.dataset.path, kind: e.dataset.kind, value: e.dataset.value, text: e.textContent,
  })));
  let checked = 0;
  for (const c of cells) {
    const expected = at(doc, c.path);
    check(expected !== undefined, `${c.path} is in the JSON`);
    check(String(expected) === c.value, `${c.path}: page ${c.value}, JSON ${expected}`);
    if (c.kind.endsWith("bytes")) {
      const parsed = parseBytes(c.text);
      check(parsed !== null, `${c.path}: "${c.text}" reads as bytes`);
      check(Math.abs(parsed[0] - Number(expected)) <= parsed[1] + 1e-9,
            `${c.path}: "${c.text}" is ${expected} bytes`);
    } else {
      check(Number(c.text.replace(/[+,]/g, "")) === Number(expected), `${c.path}: "${c.text}" is ${expected}`);
    }
    checked++;
  }
  const tables = await page.$$eval("table[data-rows]", (ts) => ts.map((t) => ({
    path: t.dataset.rows, rows: t.querySelectorAll("tbody tr").length,
  })));
  for (const t of tables) {
    const rows = at(doc, t.path);
    check(Array.isArray(rows), `${t.path} is an array in the JSON`);
    check(t.rows === Math.min(rows.length, 50), `${t.path}: ${t.rows} rows shown of ${rows.length}`);
  }
  // The saved queries' tables (--sql): the JSON's rows, cell by cell.
  const sqlTables = await page.$$eval("table[data-sql]", (ts) => ts.map((t) => ({
    at: t.dataset.sql,
    cells: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
  })));
  for (const t of sqlTables) {
    const [fi, ri] = t.at.split(".").map(Number);
    const rows = doc.sql.files[fi].results[ri].rows;
    check(t.cells.length === rows.length, `sql ${t.at}: ${t.cells.length} rows shown of ${rows.length}`);
    rows.forEach((row, i) => row.forEach((v, j) => {
      check(t.cells[i][j] === (v === null ? "NULL" : String(v)), `sql ${t.at} row ${i} column ${j}`);
      checked++;
    }));
  }
  const sections = await page.$$eval("main > section", (s) => s.map((x) => x.id));
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  check(errors.length === 0, "no script errors: " + errors.join("; "));
  check(requests.length === 0, "no network requests: " + requests.join(" "));
  check(checked > 0, "the page shows numbers");
  console.log(JSON.stringify({ checked, tables: tables.length, sections }));
})().catch((e) => { console.error(e.message); process.exit(1); });
