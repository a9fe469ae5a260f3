// Browser test of goheap's web UI (tests/serve/ui_test.cpp runs it): drives
// Debian's chromium through playwright-core against a running `goheap serve`,
// walks the pages a leak hunter uses, and checks that the numbers the pages
// show equal the JSON API's. Screenshots go to OUT_DIR.
//
//   node ui_check.js PLAYWRIGHT_CORE_DIR CHROMIUM URL OUT_DIR [diff]
//
// With "diff", against `goheap serve NEW EXE --base OLD`: only the Diff page.
"use strict";
const [, , pwDir, chromiumPath, base, outDir, mode] = process.argv;
const { chromium } = require(pwDir);

function check(cond, what) {
  if (!cond) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

// The Diff page: its link shows, both tables equal /api/diff's rows, and
// sorting by count is a click away.
async function diffChecks(page, api) {
  await page.goto(base + "/#/overview");
  await page.waitForSelector("#nav-diff:not([hidden])");
  check(true, "the Diff link shows when a base is loaded");
  await page.click("#nav-diff");
  await page.waitForSelector("#diff-groups");
  const d = await api("diff?by=auto&sort=retained&limit=50&offset=0");
  const grown = await page.$$eval("#diff-groups tr td:first-child", (tds) => tds.map((td) => Number(td.dataset.value)));
  check(grown.length === d.rows.length && grown.every((v, i) => v === d.rows[i].retained_delta), "growth by group equals /api/diff");
  const newBytes = await page.$$eval("#diff-new tr td:first-child", (tds) => tds.map((td) => Number(td.dataset.value)));
  check(newBytes.length === d.new_objects.rows.length && newBytes.every((v, i) => v === d.new_objects.rows[i].bytes), "new objects by holder equal /api/diff");
  const held = await page.textContent("#diff-new tr:nth-child(2)");
  const first = d.new_objects.rows[0];
  check(held.includes(first.group), "the first holder row names its new objects' group");
  await page.screenshot({ path: outDir + "/diff.png", fullPage: true });
  await page.click('#diff-groups th[data-sort="count"]');
  await page.waitForFunction(() => location.hash.includes("sort=count"));
  await page.waitForSelector("#diff-groups th.sorted[data-sort=count]");
  const counts = await page.$$eval("#diff-groups tr td:nth-child(3)", (tds) => tds.map((td) => Number(td.dataset.value)));
  check(counts.every((c, i) => i === 0 || counts[i - 1] >= c), "sorted by count growth after a click");
}

// The Query page: the cookbook's examples (all twenty with a base), one run
// shows /api/sql's rows, an address links to its object, bad SQL shows
// SQLite's message.
async function queryChecks(page, api) {
  await page.goto(base + "/#/query");
  await page.waitForSelector("#examples");
  const examples = await page.$$eval("#examples a", (as) => as.length);
  check(examples === 20, "the Query page offers the cookbook's twenty questions");
  await page.click("#examples li:first-child a");
  await page.waitForSelector("#sql-results");
  const sql = await page.inputValue("#sql");
  const answer = await api("sql?" + new URLSearchParams({ q: sql }));
  const rows = await page.$$eval("#sql-results tr", (trs) => trs.length - 1);
  check(rows === answer.results[0].row_count, "the first example shows /api/sql's rows");
  const firstCell = await page.textContent("#sql-results tr:nth-child(2) td:first-child");
  check(firstCell === String(answer.results[0].rows[0][0]), "its first cell is the API's");
  await page.screenshot({ path: outDir + "/query.png", fullPage: true });
  await page.goto(base + "/#/query?" + new URLSearchParams({ q: "SELECT address, type, retained FROM objects WHERE type = 'main.Session' LIMIT 3" }));
  await page.waitForSelector("#sql-results a");
  await page.click("#sql-results a");
  await page.waitForSelector("#retained");
  check((await page.evaluate(() => location.hash)).startsWith("#/obj/0x"), "an address in the results opens its object");
  await page.goto(base + "/#/query?" + new URLSearchParams({ q: "SELEC 1" }));
  await page.waitForSelector("#sql-error");
  check((await page.textContent("#sql-error")).includes("syntax error"), "bad SQL shows SQLite's message");
}

(async () => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const api = (path) => page.evaluate(async (p) => (await fetch("/api/" + p)).json(), path);
  if (mode === "diff") {
    await diffChecks(page, api);
    await queryChecks(page, api);
    check(errors.length === 0, "no JavaScript errors (" + errors.join("; ") + ")");
    await browser.close();
    console.log("all diff UI checks passed");
    return;
  }

  // Overview: the reachable bytes shown are the API's.
  await page.goto(base + "/#/overview");
  await page.waitForSelector("#retainers");
  const summary = await api("summary?n=20");
  const shown = Number(await page.getAttribute("#reachable-bytes", "data-value"));
  check(shown === summary.objects.reachable_bytes, "overview shows the reachable bytes of /api/summary");
  const firstRetained = Number(await page.getAttribute("#retainers tr:nth-child(2) td", "data-value"));
  check(firstRetained === summary.top_retainers[0].retained, "the first top retainer's retained size");
  await page.screenshot({ path: outDir + "/overview.png", fullPage: true });

  // Histogram, sorted by count by clicking the header.
  await page.goto(base + "/#/top");
  await page.waitForSelector("#histogram");
  await page.click('th[data-sort="count"]');
  await page.waitForFunction(() => location.hash.includes("sort=count"));
  await page.waitForSelector("#histogram th.sorted[data-sort=count]");
  const counts = await page.$$eval("#histogram tr td:nth-child(3)", (tds) => tds.map((td) => Number(td.dataset.value)));
  const top = await api("top?by=auto&sort=count&n=100&offset=0");
  check(counts.length === top.rows.length && counts.every((c, i) => c === top.rows[i].count), "histogram by count equals /api/top");
  check(counts.every((c, i) => i === 0 || counts[i - 1] >= c), "histogram rows are sorted by count");
  await page.screenshot({ path: outDir + "/histogram.png" });

  // Treemap: zoom two levels, then open an object.
  const drawn = () => page.waitForFunction(() => {
    const t = document.querySelector("#treemap");
    return t && t.dataset.view === location.hash;
  });
  await page.goto(base + "/#/treemap");
  await drawn();
  for (let level = 1; level <= 2; level++) {
    const before = await page.evaluate(() => location.hash);
    // The biggest tile that has something inside to zoom into.
    const tile = await page.$('#treemap > .tile:not([data-children="0"])');
    check(tile !== null, `treemap level ${level} has a tile to zoom into`);
    const box = await tile.boundingBox();
    // Its own margin, below the tiles nested in it and away from its name.
    await page.mouse.click(box.x + box.width / 2, box.y + box.height - 2);
    await page.waitForFunction((b) => location.hash !== b, before);
    await drawn();
    console.log("zoomed into " + (await page.evaluate(() => location.hash)));
  }
  await page.screenshot({ path: outDir + "/treemap.png" });
  const link = await page.$("#treemap a.open");
  check(link !== null, "the zoomed treemap has an object to open");
  await link.click();
  await page.waitForSelector("#retained");
  const addr = decodeURIComponent((await page.evaluate(() => location.hash)).replace("#/obj/", ""));
  const obj = await api("obj?addr=" + addr);
  check(Number(await page.getAttribute("#retained", "data-value")) === obj.retained, "object page shows /api/obj's retained size");
  await page.screenshot({ path: outDir + "/object.png", fullPage: true });

  // A path to a root: its first step is the API's root.
  const paths = await api("paths?n=5&addr=" + addr);
  const rootText = await page.textContent("#paths ol.path li:first-child");
  check(rootText.includes(paths.paths[0][0].node.name), "the first path starts at the API's root");
  // Follow the path one step toward the root: the object there is reached
  // from the same root.
  const step = await page.$("#paths ol.path li:nth-child(2) a");
  if (step !== null) {
    const before = await page.evaluate(() => location.hash);
    await step.click();
    await page.waitForFunction((b) => location.hash !== b, before);
    await page.waitForSelector("#paths ol.path");
    const rootAgain = await page.textContent("#paths ol.path li:first-child");
    check(rootAgain === rootText, "the object one step toward the root is held by the same root");
  }

  // Flame graph: the root frame is all reachable bytes; zoom into the widest
  // child.
  await page.goto(base + "/#/flame");
  await page.waitForSelector("#flame .frame");
  const rootValue = Number(await page.getAttribute('#flame .frame[data-zoom=""]', "data-value"));
  check(rootValue === summary.objects.reachable_bytes, "the flame graph's root is all reachable bytes");
  await page.click('#flame .frame[data-zoom="0"]');
  await page.waitForFunction(() => location.hash.includes("zoom=0"));
  await page.waitForSelector('#flame .frame[data-zoom="0"]');
  const zoomed = Number(await page.getAttribute('#flame .frame[data-zoom="0"]', "data-value"));
  const flame = await api("flame");
  check(zoomed === flame.root.children[0].value, "zooming shows the widest child's retained bytes");
  await page.screenshot({ path: outDir + "/flame.png" });

  // Search by global name: the search box finds main.server and what it holds.
  await page.fill("#search input", "main.server");
  await page.press("#search input", "Enter");
  await page.waitForSelector("#found-globals");
  const found = await api("search?q=main.server&n=30");
  const globals = await page.$$eval("#found-globals tr td:first-child", (tds) => tds.map((td) => td.textContent));
  check(found.globals.length > 0 && globals.length === found.globals.length &&
        globals.every((g, i) => g === found.globals[i].name), "search lists the API's globals");

  // Goroutines: every goroutine is in one group; open the first.
  await page.goto(base + "/#/goroutines");
  await page.waitForSelector("details.goroutine");
  const g = await api("goroutines?sort=retained&user=false");
  const ids = await page.$$eval("details.goroutine summary", (s) => s.map((x) => x.textContent));
  check(ids.length > 0 && ids.length <= g.goroutines.length, "goroutines are grouped by stack");
  await page.click("details.goroutine summary");
  await page.waitForSelector("details.goroutine[open] ol.stack li");
  await page.screenshot({ path: outDir + "/goroutines.png", fullPage: true });

  // Leaked goroutines: the overview links to them, the page's box shows
  // only those, each group badged, as many as summary counts.
  const leakedSummary = await api("summary");
  const leakedCount = leakedSummary.roots.leaked_goroutines;
  check(leakedCount > 0, "the example dump has leaked goroutines (" + leakedCount + ")");
  await page.goto(base + "/#/overview");
  await page.waitForSelector("#leaked-goroutines");
  await page.click("#leaked-goroutines");
  await page.waitForFunction(() => location.hash.includes("leaked=1") &&
      document.querySelector("#leaked") && document.querySelector("#leaked").checked);
  await page.waitForSelector("details.goroutine");
  const leakedGroups = await page.$$eval("details.goroutine summary", (s) => s.map((x) => ({
    text: x.textContent, badged: !!x.querySelector(".badge.leaked") })));
  const countOf = (t) => { const m = /^(\d+)×/.exec(t); return m ? Number(m[1]) : 1; };
  check(leakedGroups.length > 0 && leakedGroups.every((x) => x.badged), "every leaked group is badged");
  check(leakedGroups.reduce((n, x) => n + countOf(x.text), 0) === leakedCount,
        "the leaked box shows as many goroutines as summary counts");
  await page.goto(base + "/#/suspects");
  await page.waitForSelector("#leaked-goroutine-groups td");
  const leakRows = await page.$$eval("#leaked-goroutine-groups td:first-child", (tds) => tds.map((td) => Number(td.dataset.value)));
  check(leakRows.reduce((a, b) => a + b, 0) === leakedCount, "suspects list the leaked goroutines' groups");

  // Leak suspects: the page lists the API's suspects in order, and a
  // suspect's object opens its page, which retains what the suspect does.
  await page.goto(base + "/#/suspects");
  await page.waitForSelector("section.suspect, #no-suspects");
  const sus = await api("suspects?threshold=10&limit=20");
  const shownRetained = await page.$$eval("section.suspect", (ss) => ss.map((x) => Number(x.dataset.retained)));
  check(sus.suspects.length > 0 && shownRetained.length === sus.suspects.length &&
        shownRetained.every((r, i) => r === sus.suspects[i].retained), "the suspects page lists /api/suspects");
  const descriptions = await page.$$eval("section.suspect .description", (ds) => ds.map((d) => d.textContent));
  check(descriptions.every((d, i) => d === sus.suspects[i].description), "each suspect shows its description");
  await page.screenshot({ path: outDir + "/suspects.png", fullPage: true });
  const first = sus.suspects[0];
  await page.click('section.suspect[data-rank="1"] .suspect-object a');
  await page.waitForSelector("#retained");
  check(decodeURIComponent(await page.evaluate(() => location.hash)) === "#/obj/" + first.object.address,
        "a suspect's object links to its object page");
  if (first.kind === "object") {
    check(Number(await page.getAttribute("#retained", "data-value")) === first.retained,
          "the suspect's object page retains the suspect's bytes");
  }
  // A threshold nothing reaches: the page says so.
  await page.goto(base + "/#/suspects?threshold=99");
  await page.waitForSelector("#no-suspects");
  check((await api("suspects?threshold=99")).total === 0, "no suspects at 99%");
  // Duplicates: the rows are /api/dups's groups.
  await page.goto(base + "/#/dups");
  await page.waitForSelector("#dups");
  const dups = await api("dups?kind=all&n=100");
  const dupRows = await page.$$eval("#dups tr", (trs) => trs.length - 1);
  check(dupRows === dups.groups.length, "the duplicates page lists /api/dups's groups");
  await page.screenshot({ path: outDir + "/dups.png", fullPage: true });

  // Waste: each section's rows are /api/waste's.
  await page.goto(base + "/#/waste");
  await page.waitForSelector("#garbage");
  const waste = await api("waste?n=50");
  const garbageRows = await page.$$eval("#garbage tr", (trs) => trs.length - 1);
  check(garbageRows === waste.garbage.rows.length, "the waste page lists /api/waste's garbage groups");
  if (waste.rounding.available) {
    const roundingRows = await page.$$eval("#rounding tr", (trs) => trs.length - 1);
    check(roundingRows === waste.rounding.rows.length, "the waste page lists the rounding rows");
  }
  await page.screenshot({ path: outDir + "/waste.png", fullPage: true });

  // Memory: one row per category of /api/memory, biggest first, its bytes
  // the API's (a dump: memstats, the categories it cannot know unknown).
  await page.goto(base + "/#/memory");
  await page.waitForSelector("#memory tr[data-category]");
  const mem = await api("memory");
  const shownMem = await page.$$eval("#memory tr[data-category]", (trs) =>
    trs.map((tr) => [tr.dataset.category, tr.querySelector("td").dataset.value ?? null]));
  const memBytes = Object.fromEntries(mem.categories.map((c) => [c.name, c.bytes === null ? null : String(c.bytes)]));
  check(shownMem.length === mem.categories.length && shownMem.every(([n, v]) => v === memBytes[n]),
        "the Memory page shows /api/memory's categories");
  const known = shownMem.filter(([, v]) => v !== null).map(([, v]) => Number(v));
  check(known.every((v, i) => i === 0 || known[i - 1] >= v), "the Memory page lists the categories biggest first");
  await page.screenshot({ path: outDir + "/memory.png", fullPage: true });

  check(errors.length === 0, "no JavaScript errors (" + errors.join("; ") + ")");
  await browser.close();
  console.log("all UI checks passed");
})().catch((e) => { console.error(String(e.stack || e)); process.exit(1); });
