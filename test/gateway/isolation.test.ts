/**
 * Credentials are per request: two users asking the same thing at the same time each get their own
 * answer, fetched with their own credentials, and nothing one of them loaded (messages, users,
 * channels) is served to the other. Hamlet is subscribed to the private channel `engineering`
 * (protected history); Othello is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

const QUERY = /* GraphQL */ `
  query Same($channel: Long!) {
    me { user { fullName } }
    channel(id: $channel) { name description }
    messages(narrow: { channelId: $channel }, last: 20) { nodes { zulipId content sender { fullName } channel { name } } }
    recent: messages(last: 50) { nodes { zulipId channel { name } } }
  }
`;

interface Answer {
  me: { user: { fullName: string } };
  channel: { name: string } | null;
  messages: { nodes: { id: number; content: string }[] } | null;
  recent: { nodes: { id: number; channel: { name: string } | null }[] };
}

describe('two credentials at the same time', () => {
  it('each caller sees only what its own credentials allow, fetched with its own credentials', async () => {
    const engineering = h.channelId('engineering');
    const before = h.emulator.requests.length;
    // Interleave many concurrent requests of both users so any shared batch or cache would show.
    const calls = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'hamlet' : 'othello')).map((login) =>
      h.gql<Answer>(QUERY, { channel: engineering }, { as: demoUser(login).email }).then((r) => ({ login, r })),
    );
    const results = await Promise.all(calls);

    for (const { login, r } of results) {
      const answer = r.data!;
      const recentChannels = answer.recent.nodes.map((n) => n.channel?.name);
      if (login === 'hamlet') {
        expect(answer.me.user.fullName).toBe('King Hamlet');
        expect(answer.channel?.name).toBe('engineering');
        expect(answer.messages!.nodes.map((n) => n.content).join(' ')).toContain('Release plan');
        expect(recentChannels).toContain('engineering');
      } else {
        expect(answer.me.user.fullName).toBe('Othello, the Moor of Venice');
        // No access to the private channel: an error for those fields, never Hamlet's data.
        expect(answer.messages).toBeNull();
        expect(JSON.stringify(answer)).not.toContain('Release plan');
        expect(recentChannels).not.toContain('engineering');
        expect(r.errors?.length).toBeGreaterThan(0);
      }
    }

    // Every upstream call carried the credentials of the user whose request caused it, and each
    // request loaded users and channels with its own bulk call (no batch shared across the two).
    const made = h.emulator.requests.slice(before);
    // The only calls without credentials are the public server settings (the feature level).
    expect(made.filter((m) => m.email === undefined).every((m) => m.path === '/server_settings')).toBe(true);
    const emails = new Set(made.filter((m) => m.email !== undefined).map((m) => m.email));
    expect(emails).toEqual(new Set([demoUser('hamlet').email, demoUser('othello').email]));
    for (const login of ['hamlet', 'othello']) {
      const own = made.filter((m) => m.email === demoUser(login).email);
      // At most one bulk call per request: fewer once the gateway learned this server ignores
      // `user_ids` (a few users are then fetched by ID) or, with the live directory, once the
      // caller's directory loaded.
      const bulk = own.filter((m) => m.method === 'GET' && m.path === '/users').length;
      expect(bulk).toBeLessThanOrEqual(5);
    }
  });
});
