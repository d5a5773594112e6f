/**
 * Chromium for browser tests, through playwright-core (no bundled browser download): the system
 * Chromium (CHROMIUM_PATH, else /usr/bin/chromium or chromium-browser). Without one, browser tests
 * are skipped with a notice, unless REQUIRE_BROWSER=1 (CI), where they fail.
 *
 * Pages may reach loopback only: every other request is aborted and recorded, so a test also
 * proves the page loads nothing from a CDN.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => Boolean(p),
);

/** The Chromium executable, or undefined. */
export function findChromium(): string | undefined {
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path));
}

/** True when browser tests should be skipped (and says why); throws when they are required but impossible. */
export function skipBrowserTests(): boolean {
  if (findChromium()) return false;
  if (process.env.REQUIRE_BROWSER === '1') {
    throw new Error(`REQUIRE_BROWSER=1 but no Chromium found (looked at ${CHROMIUM_CANDIDATES.join(', ')}; set CHROMIUM_PATH).`);
  }
  console.warn(`[browser tests skipped] no Chromium at ${CHROMIUM_CANDIDATES.join(', ')}; set CHROMIUM_PATH, or REQUIRE_BROWSER=1 to fail instead.`);
  return true;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium()!,
    // Containers and CI run as root without user namespaces.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Opens a page that may load loopback URLs, data: and blob: only; returns the refused URLs. */
export async function loopbackPage(browser: Browser): Promise<{ page: Page; refused: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const refused: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || LOOPBACK.has(url.hostname)) return route.continue();
    refused.push(url.href);
    return route.abort('blockedbyclient');
  });
  return { page: await context.newPage(), refused };
}

/** Where screenshots go (git-ignored). */
export function screenshotPath(name: string): string {
  const dir = new URL('../../test-results/browser/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  return new URL(`${name}.png`, dir).pathname;
}
