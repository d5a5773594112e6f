/**
 * `npm start` (src/main.ts) without ZULIP_URL: the embedded demo emulator, a printed credential
 * that works (over HTTP and graphql-ws on one server), and a clean close. Everything listens on
 * 127.0.0.1 ephemeral ports.
 */
import { describe, expect, it } from 'vitest';
import { start } from '../src/main.js';
import { rawSocket } from './helpers/ws-client.js';

describe('start', () => {
  it('serves the demo organization and prints a working credential and curl example', async () => {
    const lines: string[] = [];
    const started = await start({ PORT: '0', HOST: '127.0.0.1' }, (line) => lines.push(line));
    try {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      const authorization = lines.map((l) => /^\s+Authorization: (Basic \S+)$/.exec(l)?.[1]).find(Boolean);
      expect(authorization).toBeDefined();
      expect(lines.some((l) => l.includes(`curl -s ${started.url}`) && l.includes(authorization!))).toBe(true);

      const response = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: authorization! },
        body: JSON.stringify({ query: '{ serverSettings { realmName featureLevel } }' }),
      });
      const body = await response.json();
      expect(body.errors).toBeUndefined();
      expect(body.data.serverSettings.realmName).toBeTruthy();

      // The same server refuses possible cross-site form posts, and upgrades graphql-ws sockets.
      const form = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query=%7B__typename%7D',
      });
      expect(form.status).toBe(403);
      expect((await form.json()).errors[0].extensions.code).toBe('CSRF_REFUSED');
      const socket = await rawSocket(started.url.replace(/^http/, 'ws'));
      socket.send({ type: 'connection_init', payload: { authorization } });
      await socket.waitForMessage((m) => m.type === 'connection_ack');
      socket.close();
    } finally {
      await started.close();
    }
    await expect(fetch(started.url, { method: 'POST' })).rejects.toThrow();
  });

  it.each([
    [{ ZULIP_URL: 'http://127.0.0.1:9', ZULIP_EMAIL: 'a@b.c' }, /ZULIP_EMAIL and ZULIP_API_KEY/],
    [{ PORT: 'eighty' }, /PORT must be a port number/],
    [{ MAX_BODY_BYTES: '-1' }, /MAX_BODY_BYTES must be a positive integer/],
  ])('refuses an inconsistent configuration %o', async (env, message) => {
    await expect(start(env, () => undefined)).rejects.toThrow(message);
  });
});
