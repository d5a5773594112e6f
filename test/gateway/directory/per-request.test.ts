/**
 * The per-request path for users (live directory off, or not loaded yet): `GET /users?user_ids=`
 * from feature level 384; below it a few users by ID and many with one `GET /users`
 * (src/gateway/loaders/users.ts). Through the gateway's GraphQL, counting upstream calls.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type Harness } from '../../helpers/harness.js';

const calls = (h: Harness) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
const as = { as: demoUser('hamlet').email };

/** A query naming `ids.length` users at once (one loader batch). */
function usersQuery(ids: number[]): string {
  return `{ ${ids.map((id, i) => `u${i}: user(id: ${id}) { zulipId fullName }`).join(' ')} }`;
}

describe('users per request', () => {
  it('asks GET /users for just the wanted users from feature level 384', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 384 }, gateway: { liveDirectory: false } });
    for (const ids of [[h.userId('othello')], [h.userId('othello'), h.userId('iago'), h.userId('cordelia'), h.userId('shiva'), h.userId('desdemona'), h.userId('polonius')]]) {
      h.resetUpstreamRequests();
      const { data, errors } = await h.gql<Record<string, { zulipId: number; fullName: string }>>(usersQuery(ids), {}, as);
      expect(errors).toBeUndefined();
      expect(Object.values(data!).map((u) => u.zulipId)).toEqual(ids);
      expect(calls(h)).toEqual(['GET users']);
      expect(JSON.parse(h.upstreamRequests[0]!.query.user_ids!)).toEqual(ids);
    }
  });

  it('below 384: learns the server ignores user_ids, then fetches a few users by ID and many with one GET /users', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 372 }, gateway: { liveDirectory: false, userIdsBatchThreshold: 2 } });
    const othello = h.userId('othello');
    // First batch of the gateway: the server answers with everyone (user_ids ignored), which serves it.
    const first = await h.gql<Record<string, { fullName: string }>>(usersQuery([othello]), {}, as);
    expect(first.data!.u0!.fullName).toBe('Othello, the Moor of Venice');
    expect(first.extensions?.ignoredParametersUnsupported).toEqual(['user_ids']);
    expect(calls(h)).toEqual(['GET users']);

    h.resetUpstreamRequests();
    const few = [othello, h.userId('iago')];
    expect((await h.gql(usersQuery(few), {}, as)).errors).toBeUndefined();
    expect(calls(h).sort()).toEqual(few.map((id) => `GET users/${id}`).sort());

    h.resetUpstreamRequests();
    const many = [othello, h.userId('iago'), h.userId('cordelia')];
    const { data } = await h.gql<Record<string, { zulipId: number }>>(usersQuery(many), {}, as);
    expect(Object.values(data!).map((u) => u.zulipId)).toEqual(many);
    expect(calls(h)).toEqual(['GET users']);
    expect(h.upstreamRequests[0]!.query.user_ids).toBeUndefined();
  });

  it('reports an unknown user as NOT_FOUND on the by-ID path too', async () => {
    const h = setupHarness({ gateway: { liveDirectory: false } });
    await h.gql(usersQuery([h.userId('othello')]), {}, as); // learns the level
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ u0: unknown }>(usersQuery([987654]), {}, as);
    expect(data!.u0).toBeNull();
    expect(errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(calls(h)).toEqual(['GET users/987654']);
  });
});
