/**
 * Presence end to end: GraphQL → gateway → REST → emulator. The `presences` and `presence(userId)`
 * queries (read from the register state, without reporting the caller), the derived status with
 * the server's offline threshold, the `reportPresence` mutation, its feature-level gate and errors.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, store: h.emulator.store, userId: h.userId, calls };
}

interface PresenceData {
  userId: number;
  user?: { fullName: string };
  activeTimestamp: number;
  idleTimestamp: number;
  status?: string;
}

describe('presences query', () => {
  it('lists everyone recently seen with the status derived from the server threshold', async () => {
    const { h, store, userId, calls } = harness();
    const cordelia = store.presence.get(userId('cordelia'))!;
    // Cordelia was last heard from long ago; move Hamlet's last activity to 3 minutes ago, still connected.
    const now = Math.floor(Date.now() / 1000);
    Object.assign(store.presence.get(userId('hamlet'))!, { active_timestamp: now - 250, idle_timestamp: now - 10 });
    cordelia.active_timestamp = cordelia.idle_timestamp = now - 1800;
    const { data, errors } = await h.gql<{ presences: PresenceData[] }>(
      '{ presences { userId user { fullName } activeTimestamp idleTimestamp status } }',
      {},
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    const iago = store.presence.get(userId('iago'))!;
    expect(data!.presences).toEqual([
      { userId: userId('iago'), user: { fullName: 'Iago' }, activeTimestamp: iago.active_timestamp, idleTimestamp: iago.idle_timestamp, status: 'ACTIVE' },
      { userId: userId('hamlet'), user: { fullName: 'King Hamlet' }, activeTimestamp: now - 250, idleTimestamp: now - 10, status: 'IDLE' },
      { userId: userId('cordelia'), user: { fullName: 'Cordelia, Lear\u2019s daughter' }, activeTimestamp: now - 1800, idleTimestamp: now - 1800, status: 'OFFLINE' },
    ].sort((a, b) => a.userId - b.userId));
    // Presence (register + delete), the threshold (register + delete, once per server), the users.
    expect(calls().sort()).toEqual(['DELETE events', 'DELETE events', 'GET users', 'POST register', 'POST register']);
    // Reading presence does not report the caller.
    expect(store.presence.get(userId('hamlet'))!.idle_timestamp).toBe(now - 10);
    // The presence reads' queues are gone (the caller's live directory queue, if on, may remain).
    const directoryQueues = h.emulator.queues.queuesOf(userId('hamlet')).filter((q) => q.options.eventTypes?.has('realm_user'));
    expect(h.emulator.queues.size() - directoryQueues.length).toBe(0);

    h.resetUpstreamRequests();
    await h.gql('{ presences { status } }', {}, { as: HAMLET });
    expect(calls()).toEqual(['POST register', 'DELETE events']);
  });

  it('costs two upstream requests without status', async () => {
    const { h, calls } = harness();
    const { data } = await h.gql<{ presences: PresenceData[] }>('{ presences { userId activeTimestamp } }', {}, { as: HAMLET });
    expect(data!.presences).toHaveLength(3);
    expect(calls()).toEqual(['POST register', 'DELETE events']);
  });

  it('leaves out users who do not share their presence', async () => {
    const { h, store, userId } = harness();
    store.users.get(userId('iago'))!.presence_enabled = false;
    const { data } = await h.gql<{ presences: PresenceData[] }>('{ presences { userId } }', {}, { as: HAMLET });
    expect(data!.presences.map((p) => p.userId)).not.toContain(userId('iago'));
  });
});

describe('presence(userId) query', () => {
  it('returns one user, or null without recent presence data', async () => {
    const { h, userId } = harness();
    const { data, errors } = await h.gql<{ iago: PresenceData | null; othello: PresenceData | null }>(
      'query($iago: Long!, $othello: Long!) { iago: presence(userId: $iago) { userId status } othello: presence(userId: $othello) { userId } }',
      { iago: userId('iago'), othello: userId('othello') },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ iago: { userId: userId('iago'), status: 'ACTIVE' }, othello: null });
    // Both fields share one register.
    expect(h.upstreamRequests.filter((r) => r.path === 'register')).toHaveLength(2); // presence + threshold
  });

  it('fails with UNAUTHENTICATED without credentials, before any upstream call', async () => {
    const { h } = harness();
    h.resetUpstreamRequests();
    const { errors } = await h.gql('{ presences { userId } }', {}, { as: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('reportPresence mutation', () => {
  it('reports the caller and returns everyone in the modern format', async () => {
    const { h, store, userId } = harness();
    const { data, errors } = await h.gql<{ reportPresence: { presenceLastUpdateId: number; serverTimestamp: number; presences: PresenceData[] } }>(
      'mutation { reportPresence(status: ACTIVE, lastUpdateId: -1) { presenceLastUpdateId serverTimestamp presences { userId activeTimestamp status } } }',
      {},
      { as: demoUser('othello').email },
    );
    expect(errors).toBeUndefined();
    const report = data!.reportPresence;
    const othello = store.presence.get(userId('othello'))!;
    expect(report.presenceLastUpdateId).toBe(othello.last_update_id);
    expect(report.serverTimestamp).toBeCloseTo(Date.now() / 1000, -1);
    expect(report.presences.find((p) => p.userId === userId('othello'))).toEqual({
      userId: userId('othello'),
      activeTimestamp: othello.active_timestamp,
      status: 'ACTIVE',
    });
    expect(report.presences.map((p) => p.userId)).toEqual([...report.presences.map((p) => p.userId)].sort((a, b) => a - b));

    // Incremental: nothing changed since.
    const again = await h.gql<{ reportPresence: { presenceLastUpdateId: number; presences: PresenceData[] } }>(
      'mutation($id: Long) { reportPresence(status: ACTIVE, lastUpdateId: $id) { presenceLastUpdateId presences { userId } } }',
      { id: report.presenceLastUpdateId },
      { as: demoUser('othello').email },
    );
    expect(again.data!.reportPresence).toEqual({ presenceLastUpdateId: report.presenceLastUpdateId, presences: [] });
  });

  it('returns no data with pingOnly, and honours historyLimitDays', async () => {
    const { h, store, userId } = harness();
    const { data, errors } = await h.gql<{ reportPresence: Record<string, unknown> }>(
      'mutation { reportPresence(status: IDLE, pingOnly: true) { presenceLastUpdateId serverTimestamp presences { userId } } }',
      {},
      { as: demoUser('shiva').email },
    );
    // A ping returns no data; its presence_last_update_id is -1 when no id was sent (the API spec).
    expect(errors).toBeUndefined();
    expect(data!.reportPresence).toEqual({ presenceLastUpdateId: -1, serverTimestamp: null, presences: [] });
    expect(store.presence.has(userId('shiva'))).toBe(true);
    const none = await h.gql<{ reportPresence: { presences: unknown[] } }>(
      'mutation { reportPresence(status: ACTIVE, historyLimitDays: 0) { presences { userId } } }',
      {},
      { as: demoUser('shiva').email },
    );
    expect(none.data!.reportPresence.presences).toEqual([]);
  });

  it('refuses lastUpdateId below feature level 263 without reporting anything', async () => {
    const { h, calls, store } = harness({ emulatorSettings: { featureLevel: 262 } });
    const before = store.presenceLastUpdateId;
    const { data, errors } = await h.gql('mutation { reportPresence(status: ACTIVE, lastUpdateId: -1) { presenceLastUpdateId } }', {}, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 263, featureLevel: 262 });
    expect(calls()).toEqual(['GET server_settings']);
    expect(store.presenceLastUpdateId).toBe(before);
    // Without lastUpdateId the same server is fine.
    const plain = await h.gql<{ reportPresence: { presences: unknown[] } }>('mutation { reportPresence(status: ACTIVE) { presences { userId } } }', {}, { as: HAMLET });
    expect(plain.errors).toBeUndefined();
  });

  it('maps a server refusal (a bot reporting presence) to BAD_REQUEST with the route', async () => {
    const { h, store } = harness();
    const bot = [...store.users.values()].find((u) => u.is_bot)!;
    const { errors } = await h.gql('mutation { reportPresence(status: ACTIVE) { presenceLastUpdateId } }', {}, {
      as: { email: bot.delivery_email, apiKey: bot.api_key },
    });
    expect(errors?.[0]).toMatchObject({
      message: 'This endpoint does not accept bot requests.',
      path: ['reportPresence'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'update-presence' },
    });
  });

  it('rejects a status outside the enum before any upstream call', async () => {
    const { h, calls } = harness();
    const { errors } = await h.gql('mutation { reportPresence(status: BUSY) { presenceLastUpdateId } }', {}, { as: HAMLET });
    expect(errors?.[0]?.message).toMatch(/BUSY/);
    expect(calls()).toEqual([]);
  });
});

describe('realmPresence and userPresence (per client)', () => {
  interface ByClient {
    email: string | null;
    userId: number | null;
    user: { zulipId: number } | null;
    aggregated: { client: string; status: string; timestamp: number } | null;
    clients: { client: string; status: string; timestamp: number }[];
  }
  const FIELDS = 'email userId user { zulipId } aggregated { client status timestamp } clients { client status timestamp }';

  it('realmPresence lists everyone by email in one call, without reporting the caller', async () => {
    const { h, store, userId, calls } = harness();
    const before = store.presence.get(userId('hamlet'))?.idle_timestamp;
    const { data, errors } = await h.gql<{ realmPresence: { serverTimestamp: number; presences: ByClient[] } }>(`{ realmPresence { serverTimestamp presences { ${FIELDS} } } }`, {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    const iago = data!.realmPresence.presences.find((p) => p.email === demoUser('iago').email)!;
    const record = store.presence.get(userId('iago'))!;
    expect(iago).toMatchObject({ userId: null, user: null, aggregated: { status: 'active', timestamp: record.active_timestamp } });
    expect(iago.clients).toEqual([expect.objectContaining({ client: 'website', status: 'active' })]);
    expect(data!.realmPresence.serverTimestamp).toBeGreaterThan(0);
    expect(calls()).toEqual(['GET realm/presence']);
    expect(store.presence.get(userId('hamlet'))?.idle_timestamp).toBe(before);
  });

  it('userPresence by ID links the user; by email gives the email; errors keep their code', async () => {
    const { h, userId, calls } = harness();
    const byId = await h.gql<{ userPresence: ByClient }>(`query ($id: Long) { userPresence(userId: $id) { ${FIELDS} } }`, { id: userId('iago') }, { as: HAMLET });
    expect(byId.errors).toBeUndefined();
    expect(byId.data!.userPresence).toMatchObject({ userId: userId('iago'), user: { zulipId: userId('iago') }, email: null, aggregated: { client: 'aggregated' } });
    expect(byId.data!.userPresence.clients.map((c) => c.client)).toEqual(['website']);
    expect(calls().filter((c) => c.includes('/presence'))).toEqual([`GET users/${userId('iago')}/presence`]);
    h.resetUpstreamRequests();
    const byEmail = await h.gql<{ userPresence: ByClient }>(`query ($e: String) { userPresence(email: $e) { ${FIELDS} } }`, { e: demoUser('iago').email }, { as: HAMLET });
    expect(byEmail.data!.userPresence).toMatchObject({ email: demoUser('iago').email, userId: null, user: null });
    expect(calls()).toEqual([`GET users/${encodeURIComponent(demoUser('iago').email)}/presence`]);
    const unknown = await h.gql(`query { userPresence(userId: 99999) { email } }`, {}, { as: HAMLET });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'No such user', extensions: { code: 'BAD_REQUEST', route: 'get-user-presence' } });
  });

  it('userPresence refuses both or neither of userId and email before any call', async () => {
    const { h, calls } = harness();
    for (const args of ['', '(userId: 1, email: "a@b.c")', '(userId: 0)', '(email: " ")']) {
      const { errors } = await h.gql(`query { userPresence${args} { email } }`, {}, { as: HAMLET });
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(calls()).toEqual([]);
  });
});
