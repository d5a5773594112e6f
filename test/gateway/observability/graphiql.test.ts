/** GraphiQL served from the installed package (no CDN), titled chatgraph, on the README's dashboard query. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DASHBOARD_QUERY, graphiqlOptions, packagedGraphiQLRenderer } from '../../../src/gateway/graphiql.js';
import { startTestServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => server?.close());

const DEMO_AUTHORIZATION = 'Basic ZGVtb0BleGFtcGxlLmNvbTpkZW1va2V5';

async function page(setup: Parameters<typeof graphiqlOptions>[0], graphiql = true) {
  server = await startTestServer({ yoga: { graphiql: graphiql && graphiqlOptions(setup), renderGraphiQL: packagedGraphiQLRenderer() } });
  const response = await fetch(server.url, { headers: { accept: 'text/html' } });
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

describe('GraphiQL', () => {
  it('is the packaged page: no script, style or font from another origin', async () => {
    const { status, type, html } = await page({ csrfHeader: 'x-graphql-yoga-csrf' });
    expect(status).toBe(200);
    expect(type).toContain('text/html');
    expect(html).toContain('<title>chatgraph</title>');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr\.net|cdnjs/);
    expect(html).toContain(JSON.stringify(DASHBOARD_QUERY).slice(1, 40));
    expect(html).toContain('"additionalHeaders":{"x-graphql-yoga-csrf":"1"}');
    expect(html).not.toContain(DEMO_AUTHORIZATION);
  });

  it('pre-fills the demo Authorization header in demo mode', async () => {
    const { html } = await page({ csrfHeader: 'x-graphql-yoga-csrf', demoAuthorization: DEMO_AUTHORIZATION });
    expect(html).toContain(DEMO_AUTHORIZATION);
  });

  it('is not served when disabled', async () => {
    const { type, html } = await page({ csrfHeader: 'x-graphql-yoga-csrf' }, false);
    expect(type ?? '').not.toContain('text/html');
    expect(html).not.toContain('<title>chatgraph</title>');
  });

  it('opens on the README dashboard query, verbatim', () => {
    const readme = readFileSync(new URL('../../../docs/examples.md', import.meta.url), 'utf8');
    expect(readme).toContain(DASHBOARD_QUERY);
  });

  it('renders the 9 MB page once per gateway', async () => {
    const render = packagedGraphiQLRenderer();
    const options = graphiqlOptions({ csrfHeader: 'x-graphql-yoga-csrf' });
    const page = await render(options);
    expect(await render(options)).toBe(page);
    expect(page.length).toBeGreaterThan(1_000_000);
  });
});
