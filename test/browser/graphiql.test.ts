/**
 * GraphiQL in a real browser: loads with nothing from outside loopback, is titled chatgraph, opens
 * on the dashboard query, runs it with the demo Authorization and the CSRF header. Skipped with a
 * notice without Chromium (REQUIRE_BROWSER=1 makes that a failure).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, loopbackPage, screenshotPath, skipBrowserTests } from './chromium.js';
import { browserTarget, DEMO_AUTHORIZATION, type BrowserTarget } from './server.js';

describe.skipIf(skipBrowserTests())('GraphiQL in Chromium', () => {
  let browser: Browser;
  let target: BrowserTarget;
  beforeAll(async () => {
    [browser, target] = await Promise.all([launchChromium(), browserTarget()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await target?.close();
  });

  it('opens on the dashboard query and runs it', { timeout: 60_000 }, async () => {
    const { page, refused } = await loopbackPage(browser);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(target.url, { waitUntil: 'load' });
    expect(await page.title()).toBe('chatgraph');
    const editor = page.locator('.graphiql-query-editor');
    // Monaco renders spaces as no-break spaces.
    const text = async (locator: typeof editor) => (await locator.innerText()).replace(/\s+/g, ' ');
    await expect.poll(() => text(editor), { timeout: 30_000 }).toContain('query Dashboard { messages(last: 100)');

    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(() => text(response), { timeout: 30_000 }).toContain('"edges"');
    await page.screenshot({ path: screenshotPath('graphiql-dashboard') });

    expect(refused).toEqual([]);
    expect(pageErrors).toEqual([]);
    if (!process.env.CHATGRAPH_URL) {
      const posts = target.requests;
      expect(posts.length).toBeGreaterThan(0); // introspection, then the dashboard
      for (const headers of posts) expect(headers['x-graphql-yoga-csrf']).toBe('1');
      expect(posts.at(-1)!.authorization).toBe(DEMO_AUTHORIZATION);
    }
  });

  // The stand-in schema's subscription (a running gateway needs a chat server event to send).
  it.skipIf(Boolean(process.env.CHATGRAPH_URL))('runs a subscription over SSE, with the CSRF header', { timeout: 60_000 }, async () => {
    const { page, refused } = await loopbackPage(browser);
    await page.goto(`${target.url}?query=${encodeURIComponent('subscription Ticks { ticks(n: 3) }')}`, { waitUntil: 'load' });
    const editor = page.locator('.graphiql-query-editor');
    const text = async (locator: typeof editor) => (await locator.innerText()).replace(/\s+/g, ' ');
    await expect.poll(() => text(editor), { timeout: 30_000 }).toContain('subscription Ticks');
    const before = target.requests.length;
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => text(page.locator('.graphiql-response')), { timeout: 30_000 }).toContain('"ticks": 3');
    await page.screenshot({ path: screenshotPath('graphiql-subscription') });
    const sse = target.requests.slice(before).find((h) => h.accept?.includes('text/event-stream'));
    expect(sse).toMatchObject({ 'x-graphql-yoga-csrf': '1', authorization: DEMO_AUTHORIZATION });
    expect(refused).toEqual([]);
  });
});
