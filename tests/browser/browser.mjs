// Headless Chromium through playwright-core, launched as the machine notes say.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

/** A browser with a fresh profile, removed on close. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "ndd-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    // The page forbids eval (its Content-Security-Policy); the checks' waitForFunction polls need it.
    bypassCSP: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  // Nothing leaves the page: any request other than the file itself fails the check.
  const requests = [];
  context.on("request", (r) => { if (!r.url().startsWith("file://")) requests.push(r.url()); });
  return {
    context,
    requests,
    async close() { await context.close(); rmSync(profile, { recursive: true, force: true }); },
  };
}

/** Opens `path` in a new page, collecting console errors and page errors. */
export async function open(browser, path) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(path).href);
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  return { page, errors };
}
