import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClusterConfigError, createKeyDeriver, streamKeyOfLease } from '../../../src/gateway/cluster/keys.js';

const SECRET = 'a'.repeat(32);
const SERVER = 'https://chat.example.com';
const hamlet = { email: 'hamlet@example.com', apiKey: 'hamletApiKey0123456789abcdefghij' };

describe('credential keys', () => {
  it('refuses to work without a secret, or with a short one', () => {
    expect(() => createKeyDeriver({ secret: undefined })).toThrow(ClusterConfigError);
    expect(() => createKeyDeriver({ secret: '' })).toThrow(/GATEWAY_SECRET is required/);
    expect(() => createKeyDeriver({ secret: 'short' })).toThrow(/at least 32 characters/);
  });

  it('names every key of a credential with the same HMAC id under the prefix, in one hash slot', () => {
    const keys = createKeyDeriver({ secret: SECRET, prefix: 'team-a:' })(SERVER, hamlet);
    expect(keys.id).toMatch(/^[0-9a-f]{64}$/);
    expect(keys).toEqual({
      id: keys.id,
      lease: `team-a:lease:{${keys.id}}`,
      stream: `team-a:stream:{${keys.id}}`,
      state: `team-a:state:{${keys.id}}`,
      snapshot: `team-a:snapshot:{${keys.id}}`,
      changes: `team-a:changes:{${keys.id}}`,
      writes: `team-a:writes:{${keys.id}}`,
    });
    expect(createKeyDeriver({ secret: SECRET })(SERVER, hamlet).lease).toBe(`chatgraph:lease:{${keys.id}}`);
    expect(streamKeyOfLease(keys.lease)).toBe(keys.stream); // the log a lease handover seals
  });

  it('is stable across instances sharing the secret, and differs for any other secret, server or credential', () => {
    const id = (secret: string, server: string, credentials: typeof hamlet) => createKeyDeriver({ secret })(server, credentials).id;
    const base = id(SECRET, SERVER, hamlet);
    expect(id(SECRET, SERVER, { ...hamlet })).toBe(base);
    const others = [
      id('b'.repeat(32), SERVER, hamlet),
      id(SECRET, 'https://other.example.com', hamlet),
      id(SECRET, SERVER, { ...hamlet, apiKey: `${hamlet.apiKey}x` }),
      id(SECRET, SERVER, { ...hamlet, email: 'othello@example.com' }),
    ];
    expect(new Set([base, ...others]).size).toBe(5);
  });

  it('contains neither the credential nor a plain hash of it', () => {
    const keys = createKeyDeriver({ secret: SECRET })(SERVER, hamlet);
    const all = Object.values(keys).join(' ');
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const secrets = [
      hamlet.apiKey,
      hamlet.email,
      Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString('base64'),
      sha(hamlet.apiKey),
      sha(`${hamlet.email}:${hamlet.apiKey}`),
    ];
    for (const secret of secrets) expect(all).not.toContain(secret);
  });
});
