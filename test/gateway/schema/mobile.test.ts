/**
 * The deprecated push token mutations end to end: GraphQL → gateway → REST → emulator. One
 * upstream call each, marked deprecated in the schema, Zulip's errors with their codes, bad input
 * refused before any call, and the token never in an error.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = { as: demoUser('hamlet').email };

function harness() {
  const h = setupHarness();
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  const tokens = () => [...(h.emulator.store.pushTokens.get(h.userId('hamlet'))?.values() ?? [])];
  return { h, calls, tokens };
}

describe('push token mutations (deprecated)', () => {
  it('adds and removes tokens in one call each', async () => {
    const { h, calls, tokens } = harness();
    const add = await h.gql('mutation { addApnsToken(token: "c0ffee", appId: "org.zulip.Zulip") addFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(add.errors).toBeUndefined();
    expect(add.data).toEqual({ addApnsToken: true, addFcmToken: true });
    expect(tokens()).toEqual([
      { kind: 'apns', token: 'c0ffee', appid: 'org.zulip.Zulip' },
      { kind: 'fcm', token: 'fcm-secret' },
    ]);
    expect(calls().sort()).toEqual(['POST users/me/android_gcm_reg_id', 'POST users/me/apns_device_token']);
    h.resetUpstreamRequests();
    const remove = await h.gql('mutation { removeApnsToken(token: "c0ffee") removeFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(remove.data).toEqual({ removeApnsToken: true, removeFcmToken: true });
    expect(tokens()).toEqual([]);
    expect(calls().sort()).toEqual(['DELETE users/me/android_gcm_reg_id', 'DELETE users/me/apns_device_token']);
  });

  it('maps "Token does not exist" to BAD_REQUEST without the token, and refuses bad input before any call', async () => {
    const { h, calls } = harness();
    const { errors } = await h.gql('mutation { removeFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(errors?.[0]).toMatchObject({ message: 'Token does not exist', extensions: { code: 'BAD_REQUEST', route: 'remove-fcm-token' } });
    expect(JSON.stringify(errors)).not.toContain('fcm-secret');
    h.resetUpstreamRequests();
    for (const mutation of ['addFcmToken(token: "")', 'addApnsToken(token: "secret-not-hex", appId: "org.zulip.Zulip")', 'addApnsToken(token: "c0ffee", appId: " ")']) {
      const bad = await h.gql(`mutation { ${mutation} }`, {}, HAMLET);
      expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(bad.errors)).not.toContain('secret-not-hex');
    }
    expect(calls()).toEqual([]);
  });

  it('marks the fields deprecated in the schema', async () => {
    const { h } = harness();
    const { data } = await h.gql<{ __type: { fields: { name: string; isDeprecated: boolean }[] } }>(
      '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated } } }',
      {},
      HAMLET,
    );
    const deprecated = data!.__type.fields.filter((f) => /Token$/.test(f.name) && f.isDeprecated).map((f) => f.name).sort();
    expect(deprecated).toEqual(['addApnsToken', 'addFcmToken', 'removeApnsToken', 'removeFcmToken']);
  });
});
