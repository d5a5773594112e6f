/**
 * Alert words end to end: GraphQL → gateway → REST → emulator. `Me.alertWords`, the two
 * mutations, their upstream calls, and the length check made before any upstream call.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;
const calls = (h: ReturnType<typeof setupHarness>) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);

describe('alert words', () => {
  it('adds, lists and removes the caller\u2019s alert words, one upstream call each', async () => {
    const h = setupHarness();
    const added = await h.gql<{ addAlertWords: { alertWords: string[] } }>(
      'mutation { addAlertWords(words: [" Denmark ", "ghost", "GHOST"]) { alertWords } }', {}, { as: HAMLET },
    );
    expect(added.errors).toBeUndefined();
    expect(added.data!.addAlertWords.alertWords).toEqual(['Denmark', 'GHOST']);
    expect(calls(h)).toEqual(['POST users/me/alert_words']);

    h.resetUpstreamRequests();
    const listed = await h.gql<{ me: { alertWords: string[] } }>('{ me { alertWords } }', {}, { as: HAMLET });
    expect(listed.data!.me.alertWords).toEqual(['Denmark', 'GHOST']);
    expect(calls(h)).toEqual(['GET users/me', 'GET users/me/alert_words']);

    h.resetUpstreamRequests();
    const removed = await h.gql<{ removeAlertWords: { alertWords: string[] } }>(
      'mutation { removeAlertWords(words: ["denmark"]) { alertWords } }', {}, { as: HAMLET },
    );
    expect(removed.data!.removeAlertWords.alertWords).toEqual(['GHOST']);
    expect(calls(h)).toEqual(['DELETE users/me/alert_words']);
  });

  it('refuses a word over 100 characters with BAD_USER_INPUT before any upstream call', async () => {
    const h = setupHarness();
    const { data, errors } = await h.gql('mutation ($w: [String!]!) { addAlertWords(words: $w) { alertWords } }', { w: ['ok', 'x'.repeat(101)] }, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]).toMatchObject({
      path: ['addAlertWords'],
      extensions: { code: 'BAD_USER_INPUT', argument: 'words', maxLength: 100 },
    });
    expect(calls(h)).toEqual([]);
  });

  it('passes on the server\u2019s refusal with its code and the operation as route', async () => {
    const h = setupHarness();
    const { errors } = await h.gql('mutation { addAlertWords(words: ["ghost"]) { alertWords } }', {}, {
      as: { email: HAMLET, apiKey: 'wrong-key' },
    });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', httpStatus: 401, route: 'add-alert-words' });
    expect(calls(h)).toEqual(['POST users/me/alert_words']);
  });
});
