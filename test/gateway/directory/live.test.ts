/**
 * The live directory wired into the gateway, end to end through GraphQL over HTTP: each credential's
 * directory is loaded by its one hub queue and kept current by its events; lookups then cost no
 * upstream call. These tests set the mode themselves (they are about the directory), whatever
 * CHATGRAPH_TEST_LIVE_DIRECTORY says.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { sessionKey } from '../../../src/gateway/events/hub.js';
import type { DirectoryClock } from '../../../src/gateway/directory/counters.js';
import type { LiveDirectories } from '../../../src/gateway/directory/live.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { setupHarness, type Harness, type HarnessOptions } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';
import { raw } from '../../../src/zulip/params.js';

const ONE = 'query One($id: Long!) { user(id: $id) { zulipId fullName email deliveryEmail } }';
const DASHBOARD = /* GraphQL */ `
  query Dashboard {
    messages(last: 100) {
      edges { node { zulipId content timestamp sender { fullName avatarUrl role } channel { name description } reactions { emojiName user { fullName } } } }
    }
  }
`;

interface OneUser {
  user: { id: number; fullName: string; email: string; deliveryEmail: string | null } | null;
}

const live = (h: Harness): LiveDirectories => h.gateway.directories!;
const harness = (options: HarnessOptions = {}) => setupHarness({ ...options, gateway: { liveDirectory: true, ...options.gateway } });

/** The directory of a demo user in this harness (undefined before its first lookup). */
function directoryOf(h: Harness, login: string) {
  const { email, apiKey } = demoUser(login);
  return live(h).registry.get(sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } })));
}

/** Makes a first lookup as `login` and waits until its directory is loaded. */
async function warm(h: Harness, login: string): Promise<void> {
  await h.gql(ONE, { id: h.userId('hamlet') }, { as: demoUser(login).email });
  await until(() => directoryOf(h, login)?.ready === true, 5000, `${login}'s directory`);
}

describe('live directory through the gateway', () => {
  it('answers user lookups with no upstream call once warm, and the dashboard with one GET /messages', async () => {
    const h = harness();
    const as = { as: demoUser('hamlet').email };
    // The first query answers per request while the directory loads in the background.
    const first = await h.gql<OneUser>(ONE, { id: h.userId('othello') }, as);
    expect(first.data!.user!.fullName).toBe('Othello, the Moor of Venice');
    expect(first.extensions).toMatchObject({ upstreamRequests: 1 }); // GET /users?user_ids=
    await warm(h, 'hamlet');

    h.resetUpstreamRequests();
    const again = await h.gql<OneUser>(ONE, { id: h.userId('othello') }, as);
    expect(again.data).toEqual(first.data);
    expect(again.extensions).toMatchObject({ upstreamRequests: 0 });
    expect(h.upstreamRequests).toEqual([]);

    const dashboard = await h.gql<{ messages: { edges: unknown[] } }>(DASHBOARD, {}, as);
    expect(dashboard.errors).toBeUndefined();
    expect(dashboard.data!.messages.edges.length).toBeGreaterThan(5);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET messages']);
    expect(live(h).stats()).toMatchObject({ directories: 1, readyDirectories: 1, loads: 1 });
    expect(live(h).stats().hits).toBeGreaterThan(0);
  });

  it('does not make a first query wait for the directory to load', async () => {
    const h = harness();
    h.emulator.faults.inject('POST /register', { latencyMs: 3000, times: 1 });
    const started = Date.now();
    const { data } = await h.gql<OneUser>(ONE, { id: h.userId('othello') }, { as: demoUser('hamlet').email });
    expect(data!.user!.fullName).toBe('Othello, the Moor of Venice');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(directoryOf(h, 'hamlet')?.ready).toBe(false);
  });

  it('keeps each credential to what the server shows it: a guest and an administrator', async () => {
    const h = harness();
    await warm(h, 'polonius');
    await warm(h, 'iago');
    const cordelia = h.userId('cordelia'); // email visible to administrators only
    h.resetUpstreamRequests();
    const asAdmin = await h.gql<OneUser>(ONE, { id: cordelia }, { as: demoUser('iago').email });
    const asGuest = await h.gql<OneUser>(ONE, { id: cordelia }, { as: demoUser('polonius').email });
    expect(h.upstreamRequests).toEqual([]);
    expect(asAdmin.data!.user!.deliveryEmail).toBe('cordelia@zulip.example.com');
    expect(asGuest.data!.user!.deliveryEmail).toBeNull();
    expect(asGuest.data!.user!.email).not.toContain('cordelia@');
    // The same answers as the per-request path gives each of them.
    const perRequest = setupHarness({ gateway: { liveDirectory: false } });
    for (const [login, answer] of [['iago', asAdmin], ['polonius', asGuest]] as const) {
      const direct = await perRequest.gql<OneUser>(ONE, { id: cordelia }, { as: demoUser(login).email });
      expect(answer.data).toEqual(direct.data);
    }
  });

  it("shows a mutation's effect to the same credential's next query (read-your-writes)", async () => {
    const h = harness();
    await warm(h, 'iago');
    const as = { as: demoUser('iago').email };
    const othello = h.userId('othello');
    for (const name of ['Othello I', 'Othello II', 'Othello III']) {
      const { errors } = await h.gql(`mutation { updateUser(user: { id: ${othello} }, fullName: "${name}") { id } }`, {}, as);
      expect(errors).toBeUndefined();
      const { data } = await h.gql<OneUser>(ONE, { id: othello }, as);
      expect(data!.user!.fullName).toBe(name);
    }
    // Once the rename's event is applied, lookups are served by the directory again.
    await until(() => live(h).stats().fences === 0);
    h.resetUpstreamRequests();
    expect((await h.gql<OneUser>(ONE, { id: othello }, as)).data!.user!.fullName).toBe('Othello III');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('shows a change made elsewhere once its event has arrived, with no upstream call', async () => {
    const h = harness();
    await warm(h, 'hamlet');
    const othello = h.userId('othello');
    const applied = directoryOf(h, 'hamlet')!.waitForEvent((e) => e.type === 'realm_user', 5000);
    // An administrator renames Othello straight through the REST API, not through this gateway.
    const { email, apiKey } = demoUser('iago');
    const rest = new ZulipConnection({ baseUrl: h.zulipUrl, fetch: (i, init) => h.emulator.fetch(new Request(i, init)), credentials: { email, apiKey } });
    await rest.request('update-user', 'PATCH', `users/${othello}`, { full_name: raw('Othello, renamed') });
    expect(await applied).toBe('applied');
    h.resetUpstreamRequests();
    const { data } = await h.gql<OneUser>(ONE, { id: othello }, { as: demoUser('hamlet').email });
    expect(data!.user!.fullName).toBe('Othello, renamed');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('reloads after its queue is lost (BAD_EVENT_QUEUE_ID), answering per request meanwhile', async () => {
    const h = harness();
    await warm(h, 'hamlet');
    const hamlet = h.userId('hamlet');
    for (const queue of h.emulator.queues.queuesOf(hamlet)) h.emulator.queues.expire(queue.id);
    await until(() => live(h).stats().reloads === 1, 5000, 'the reload');
    await until(() => directoryOf(h, 'hamlet')?.ready === true);
    h.resetUpstreamRequests();
    const { data } = await h.gql<OneUser>(ONE, { id: h.userId('othello') }, { as: demoUser('hamlet').email });
    expect(data!.user!.fullName).toBe('Othello, the Moor of Venice');
    expect(h.upstreamRequests).toEqual([]);
    expect(h.emulator.queues.queuesOf(hamlet)).toHaveLength(1);
  });

  it('drops an idle directory and its queue, and loads it again on the next lookup', async () => {
    let now = 1_000_000;
    const clock: DirectoryClock = { now: () => now, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout) };
    const h = harness({ gateway: { liveDirectory: { idleMs: 60_000, clock } } });
    await warm(h, 'hamlet');
    now += 60_000;
    live(h).registry.sweep();
    expect(live(h).stats()).toMatchObject({ directories: 0, evictedIdle: 1 });
    // The queue is released: without subscribers, the hub deletes it after its grace period.
    expect(h.gateway.directories!.stats().sessions).toBe(1);
    h.resetUpstreamRequests();
    const { data } = await h.gql<OneUser>(ONE, { id: h.userId('othello') }, { as: demoUser('hamlet').email });
    expect(data!.user!.fullName).toBe('Othello, the Moor of Venice');
    expect(h.upstreamRequests.length).toBeGreaterThan(0); // per request again
    await until(() => directoryOf(h, 'hamlet')?.ready === true, 5000, 'the directory again');
    expect(live(h).stats().loads).toBe(2);
  });

  it('stays under its memory cap by dropping the least recently used directory', async () => {
    const h = harness({ gateway: { liveDirectory: { maxBytes: 1 } } });
    await warm(h, 'hamlet');
    await warm(h, 'iago');
    expect(live(h).stats()).toMatchObject({ directories: 1, evictedMemory: 1 });
    expect(directoryOf(h, 'hamlet')).toBeUndefined();
  });

  it('is off with liveDirectory: false: every lookup goes upstream', async () => {
    const h = setupHarness({ gateway: { liveDirectory: false } });
    expect(h.gateway.directories).toBeUndefined();
    // The first asks GET /users?user_ids= (and learns that this level-372 server ignores it); then one by one.
    for (const expected of ['GET users', `GET users/${h.userId('othello')}`, `GET users/${h.userId('othello')}`]) {
      h.resetUpstreamRequests();
      await h.gql<OneUser>(ONE, { id: h.userId('othello') }, { as: demoUser('hamlet').email });
      expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([expected]);
    }
    expect(h.emulator.requests.filter((r) => r.path === '/register')).toEqual([]);
  });
});
