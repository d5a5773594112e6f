/**
 * GraphiQL in a real browser, served by `npm start` (a child process, demo mode): it loads with
 * nothing from outside loopback, is titled chatgraph, opens on the dashboard query with the demo
 * Authorization pre-filled, runs it, and runs a subscription that shows a message sent meanwhile.
 * Every GraphQL request the page sends carries the CSRF header. Screenshots go to
 * test-results/browser/ (git-ignored). Skipped with a notice without Chromium (REQUIRE_BROWSER=1
 * makes that a failure). Run with `npm run test:browser`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, loopbackPage, screenshotPath, skipBrowserTests } from './chromium.js';
import { browserTarget, type BrowserTarget } from './server.js';

const CSRF_HEADER = 'x-graphql-yoga-csrf';

/** Headers of the GraphQL requests a page sends (not the page itself). */
function recordGraphQLRequests(page: Page, url: string): Record<string, string>[] {
  const requests: Record<string, string>[] = [];
  page.on('request', (request) => {
    if (request.resourceType() !== 'document' && request.url().startsWith(url)) requests.push({ method: request.method(), ...request.headers() });
  });
  return requests;
}

/** The text of a GraphiQL pane, spaces normalised (Monaco renders no-break spaces). */
async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
}

describe.skipIf(skipBrowserTests())('GraphiQL in Chromium, served by npm start', () => {
  let browser: Browser;
  let target: BrowserTarget;
  beforeAll(async () => {
    [browser, target] = await Promise.all([launchChromium(), browserTarget()]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await target?.close();
  });

  it('opens on the dashboard query and runs it', { timeout: 60_000 }, async () => {
    const { page, refused } = await loopbackPage(browser);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const requests = recordGraphQLRequests(page, target.url);
    await page.goto(target.url, { waitUntil: 'load' });
    expect(await page.title()).toBe('chatgraph');
    await expect.poll(() => text(page, '.graphiql-query-editor'), { timeout: 30_000 }).toContain('query Dashboard { messages(last: 100)');

    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => text(page, '.graphiql-response'), { timeout: 30_000 }).toContain('"edges"');
    const result = await text(page, '.graphiql-response');
    expect(result).toContain('"sender"');
    expect(result).not.toContain('"errors"');
    await page.screenshot({ path: screenshotPath('graphiql-dashboard') });

    expect(refused).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(requests.length).toBeGreaterThan(0); // introspection, then the dashboard
    for (const headers of requests) expect(headers[CSRF_HEADER]).toBe('1');
    if (target.authorization) expect(requests.at(-1)!.authorization).toBe(target.authorization);
  });

  it('runs a subscription and shows a message sent meanwhile', { timeout: 90_000 }, async () => {
    const { page, refused } = await loopbackPage(browser);
    const requests = recordGraphQLRequests(page, target.url);
    const subscription = 'subscription Live { events { ... on MessageEvent { message { content } } } }';
    await page.goto(`${target.url}?query=${encodeURIComponent(subscription)}`, { waitUntil: 'load' });
    await expect.poll(() => text(page, '.graphiql-query-editor'), { timeout: 30_000 }).toContain('subscription Live');
    await page.locator('.graphiql-execute-button').click();

    // The subscription is live once the gateway counts it (its metrics, not a sleep).
    const metricsUrl = new URL('/metrics', target.url).href;
    const active = async () => Number(/^chatgraph_active_subscriptions (\d+)/m.exec(await (await fetch(metricsUrl)).text())?.[1] ?? 0);
    await expect.poll(active, { timeout: 30_000 }).toBeGreaterThan(0);

    const content = `Hello from the browser test ${Date.now()}`;
    const sent = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: target.authorization },
      body: JSON.stringify({ query: 'mutation($m: String!) { sendMessage(channelName: "general", topic: "browser test", content: $m) { messageId } }', variables: { m: content } }),
    });
    expect((await sent.json()).errors).toBeUndefined();
    await expect.poll(() => text(page, '.graphiql-response'), { timeout: 30_000 }).toContain(content);
    await page.screenshot({ path: screenshotPath('graphiql-subscription') });

    const sse = requests.find((headers) => headers.accept?.includes('text/event-stream'));
    expect(sse).toMatchObject({ [CSRF_HEADER]: '1', authorization: target.authorization });
    expect(refused).toEqual([]);
  });
});
