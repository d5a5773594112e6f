/** CORS from CORS_ORIGINS through real HTTP: closed by default, an allowlist with credentials, `*` without. */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/gateway/config/index.js';
import { corsOptions } from '../../../src/gateway/cors.js';
import { startTestServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => server?.close());

async function preflight(corsOrigins: string | undefined, origin: string) {
  const cors = corsOptions(loadConfig({ ZULIP_URL: 'https://chat.example.com', ...(corsOrigins !== undefined && { CORS_ORIGINS: corsOrigins }) }).gateway.corsOrigins);
  server = await startTestServer({ yoga: { cors } });
  const response = await fetch(server.url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  return { origin: response.headers.get('access-control-allow-origin'), credentials: response.headers.get('access-control-allow-credentials') };
}

describe('CORS', () => {
  it('allows no cross-origin access by default', async () => {
    expect(await preflight(undefined, 'https://evil.example.com')).toEqual({ origin: null, credentials: null });
  });

  it('allows listed origins with credentials, and only those', async () => {
    expect(await preflight('https://app.example.com', 'https://app.example.com')).toEqual({ origin: 'https://app.example.com', credentials: 'true' });
    await server!.close();
    const other = await preflight('https://app.example.com', 'https://evil.example.com');
    // yoga answers with the allowed origin, which the browser compares with the page's and refuses.
    expect(other.origin).toBe('https://app.example.com');
  });

  it('allows any origin with `*`, never with credentials', async () => {
    const answer = await preflight('*', 'https://anyone.example.com');
    expect(answer).toEqual({ origin: 'https://anyone.example.com', credentials: null });
  });
});
