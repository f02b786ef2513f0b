/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (or `BUB_CHROMIUM`)
 * driven by `puppeteer-core`, launched once per test file, without the browser's own background
 * traffic (so the servers of a test see only the requests the test makes).
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import type { Browser } from "puppeteer-core";

/** The Chromium binary, or undefined when none is installed. */
export const CHROMIUM: string | undefined = [
  process.env.BUB_CHROMIUM,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
].find((path) => path && existsSync(path));

/** Launches headless Chromium (call only when {@link CHROMIUM} is set). */
export async function launchChromium(): Promise<Browser> {
  const puppeteer = (await import("puppeteer-core")).default;
  return await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
