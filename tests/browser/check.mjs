// The report's checks in a real browser (scripts/browser_tests.sh runs them):
//
//   node check.mjs corpus REPORT.html SUMMARY.txt INPUT.jsonl
//   node check.mjs paging REPORT.html GROUPS
//
// corpus: no console error and no request; the summary's numbers equal the ones the
// run printed; searching an id shows its group; every diff's highlighted blocks
// rebuild both texts exactly (against the input file, not the page's own data).
// paging: a page of many groups loads, and each step to the next page, a filter and
// a search stays under a second.
import { readFileSync } from "node:fs";
import { launch, open } from "./browser.mjs";

let failures = 0;
function check(ok, what) {
  console.log((ok ? "ok    " : "FAIL  ") + what);
  if (!ok) failures++;
}

/** The numbers of the summary `ndd dedup` printed. */
function printed(summary) {
  const grab = (re) => { const m = summary.match(re); if (!m) throw new Error("summary: no " + re); return m.slice(1).map(Number); };
  const [documents] = grab(/^documents:\s+(\d+) read/m);
  const [kept, alone, forGroup] = grab(/^kept:\s+(\d+) \((\d+) alone, (\d+) for their group\)/m);
  const [dropped, exact, near] = grab(/^dropped:\s+(\d+) \((\d+) exact copies, (\d+) near-duplicates\)/m);
  const [pairs, groups] = grab(/^pairs:\s+(\d+) \((\d+) groups\)/m);
  return { documents, kept, alone, forGroup, dropped, exact, near, pairs, groups };
}

/** The integers of a summary line, in order. */
async function numbers(page, key) {
  const text = await page.textContent(`#summary dd[data-key="${key}"]`);
  return (text.match(/\d[\d,]*/g) || []).map((s) => Number(s.replace(/,/g, "")));
}

async function corpus([html, summaryFile, input]) {
  const want = printed(readFileSync(summaryFile, "utf8"));
  const texts = new Map();
  for (const line of readFileSync(input, "utf8").split("\n")) {
    if (line.trim()) { const r = JSON.parse(line); texts.set(String(r.id), r.text); }
  }
  const browser = await launch();
  try {
    const { page, errors } = await open(browser, html);
    check((await numbers(page, "documents"))[0] === want.documents, "documents read: " + want.documents);
    const kept = await numbers(page, "kept");
    check(kept[0] === want.kept && kept[1] === want.alone && kept[2] === want.forGroup, "kept: " + kept.join(" "));
    const dropped = await numbers(page, "dropped");
    check(dropped[0] === want.dropped && dropped[1] === want.exact && dropped[2] === want.near, "dropped: " + dropped.join(" "));
    check((await numbers(page, "groups"))[0] === want.groups, "groups: " + want.groups);
    check((await numbers(page, "pairs"))[0] === want.pairs, "pairs: " + want.pairs);
    for (const id of ["plot-scores", "plot-scurve", "plot-sizes"]) {
      check((await page.locator(`#${id} svg`).count()) === 1, id + " is an inline SVG");
    }

    // Searching an id shows its group: a member, not the kept document, of a group
    // past the first page.
    const data = await page.evaluate(() => JSON.parse(document.getElementById("ndd-data").textContent));
    const target = data.groups[data.groups.length - 1];
    const memberId = data.docs[target[2][target[2].length - 1][0]][0];
    const keptId = data.docs[target[0]][0];
    await page.fill("#search", memberId);
    await page.press("#search", "Enter");
    const cells = await page.locator("#group-list tbody tr td:nth-child(2)").allTextContents();
    check(cells.includes(keptId), `searching ${memberId} shows its group (kept ${keptId})`);

    // Every group's diffs: opened by the keyboard, each member's two sides rebuild the
    // input texts exactly from their highlighted blocks.
    await page.fill("#search", "");
    await page.press("#search", "Enter");
    await page.locator("body").click({ position: { x: 2, y: 2 } });
    let sides = 0, unique = 0, cut = 0, bad = [];
    // A side rebuilds its input text: all of it, or the part before the cut mark.
    const rebuilds = (id, got, wasCut) => {
      const full = texts.get(id);
      return full !== undefined && (got === full || (wasCut && got.length > 0 && full.startsWith(got)));
    };
    const pages = Math.ceil(data.groups.length / 50);
    for (let p = 0; p < pages; p++) {
      const rows = await page.locator("#group-list tbody tr").count();
      for (let r = 0; r < rows; r++) {
        await page.keyboard.press("Enter");
        const members = await page.locator("#members tbody tr").count();
        for (let m = 1; m < members; m++) {
          const got = await page.evaluate(() => {
            const side = (id) => [...document.querySelectorAll(`#${id} span[data-kind]`)].map((s) => s.textContent).join("");
            const name = (id) => document.getElementById(id).textContent.replace(/^(kept|member): /, "").replace(/ · .*$/, "");
            const wasCut = (id) => document.querySelector(`#${id} .cut`) !== null;
            return {
              kept: side("diff-kept"), member: side("diff-member"), keptId: name("diff-kept-h"), memberId: name("diff-member-h"),
              keptCut: wasCut("diff-kept"), memberCut: wasCut("diff-member"),
              unique: document.querySelectorAll("#diff-member span[data-kind='unique']").length,
            };
          });
          sides += 2;
          unique += got.unique;
          cut += got.keptCut + got.memberCut;
          if (!rebuilds(got.keptId, got.kept, got.keptCut)) bad.push(got.keptId);
          if (!rebuilds(got.memberId, got.member, got.memberCut)) bad.push(got.memberId);
          await page.keyboard.press("]");
        }
        await page.keyboard.press("Escape");
        await page.keyboard.press("j");
      }
    }
    check(sides > 0 && bad.length === 0, `${sides} diff sides (${cut} cut) rebuild their input texts` +
      (bad.length ? ": not " + bad.slice(0, 5).join(", ") : ""));
    check(unique > 0, `${unique} unique blocks highlighted in the members' sides`);
    check(errors.length === 0, "no console error" + (errors.length ? ": " + errors.join(" | ") : ""));
    check(browser.requests.length === 0, "no network request" + (browser.requests.length ? ": " + browser.requests.join(" ") : ""));
  } finally {
    await browser.close();
  }
}

async function paging([html, groups]) {
  const browser = await launch();
  try {
    const started = Date.now();
    const { page, errors } = await open(browser, html);
    console.log(`      opened ${groups} groups in ${Date.now() - started} ms`);
    check((await numbers(page, "groups"))[0] === Number(groups), "groups: " + groups);
    const info = async () => page.textContent("#page-info");
    const timed = async (what, act) => {
      const before = await info();
      const t = Date.now();
      await act();
      await page.waitForFunction((b) => document.getElementById("page-info").textContent !== b, before);
      return Date.now() - t;
    };
    let worst = 0;
    for (let i = 0; i < 20; i++) worst = Math.max(worst, await timed("next", () => page.click("#next")));
    worst = Math.max(worst, await timed("last", async () => { for (let i = 0; i < 3; i++) await page.keyboard.press("n"); }));
    check(worst < 1000, `paging: the slowest of 21 steps took ${worst} ms`);
    const filter = await timed("filter", async () => { await page.fill("#size-min", "3"); await page.press("#size-min", "Tab"); });
    check(filter < 1000, `size filter over ${groups} groups: ${filter} ms`);
    const search = await timed("search", async () => { await page.fill("#search", "doc-77777"); await page.press("#search", "Enter"); });
    check(search < 1000, `search over ${groups} groups: ${search} ms`);
    const t = Date.now();
    await page.keyboard.press("Escape");
    await page.locator("#group-list tbody tr").first().click();
    await page.waitForSelector("#detail:not([hidden])");
    const opened = Date.now() - t;
    check(opened < 1000, `opening a group: ${opened} ms`);
    check(errors.length === 0, "no console error" + (errors.length ? ": " + errors.join(" | ") : ""));
  } finally {
    await browser.close();
  }
}

const [mode, ...args] = process.argv.slice(2);
const run = { corpus, paging }[mode];
if (!run) { console.error("usage: node check.mjs corpus|paging ..."); process.exit(2); }
await run(args);
if (failures) { console.error(`${failures} check(s) failed`); process.exit(1); }
