// The guide's screenshots of a report (scripts/report_screenshots.sh):
//   node screenshots.mjs REPORT.html OUT_DIR
// report-summary.png (summary and plots), report-groups.png (the group list after a
// search), report-diff.png (a group opened on a member with unique and moved text),
// report-dark.png (the same in dark mode).
import { launch, open } from "./browser.mjs";

const [html, out] = process.argv.slice(2);
const browser = await launch();
try {
  const { page, errors } = await open(browser, html);
  await page.evaluate(() => { document.documentElement.classList.add("light"); });
  const top = await page.locator("#plots").boundingBox();
  await page.screenshot({ path: `${out}/report-summary.png`, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: top.y + top.height + 8 } });

  // The group list, filtered to the groups with a near-duplicate.
  await page.selectOption("#reason", "near");
  await page.locator("#groups").screenshot({ path: `${out}/report-groups.png` });

  // The member whose diff shows the most kinds of blocks, in the largest group that has one.
  const pick = await page.evaluate(() => {
    const D = JSON.parse(document.getElementById("ndd-data").textContent);
    let best = null;
    D.groups.forEach((g, gi) => g[2].forEach((m, mi) => {
      const kinds = new Set(m[6].filter((_, i) => i % 3 === 0)).size;
      const len = (D.docs[m[0]][1] || "").length;
      if (kinds > 1 && len < 2500 && (!best || kinds > best.kinds)) best = { gi, mi, kinds, id: D.docs[g[0]][0] };
    }));
    return best;
  });
  await page.selectOption("#reason", "");
  await page.fill("#search", pick.id);
  await page.press("#search", "Enter");
  await page.locator(`#group-list tbody tr[data-group="${pick.gi}"]`).click();
  await page.locator(`#members tbody tr[data-member="${pick.mi}"]`).click();
  await page.locator("#detail").screenshot({ path: `${out}/report-diff.png` });
  await page.evaluate(() => { document.documentElement.classList.remove("light"); document.documentElement.classList.add("dark"); });
  await page.locator("#detail").screenshot({ path: `${out}/report-dark.png` });
  if (errors.length) throw new Error("console errors: " + errors.join(" | "));
  console.log(`screenshots of ${pick.id}'s group (member ${pick.mi}) in ${out}`);
} finally {
  await browser.close();
}
