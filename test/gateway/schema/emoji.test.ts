/** Custom emoji end to end: the `customEmoji` query, its author link, its filter and its errors. */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createHarness } from '../../helpers/harness.js';

describe('customEmoji', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const store = h.emulator.store;
  store.customEmoji.set(7, { id: 7, name: 'octopus', file_name: '7.png', still_file_name: null, deactivated: false, author_id: h.userId('hamlet') });
  store.customEmoji.set(3, { id: 3, name: 'party', file_name: '3.gif', still_file_name: '3.png', deactivated: true, author_id: null });

  it('lists the active emoji with absolute image URLs and the author resolved, in one upstream call for the list', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ customEmoji: Record<string, unknown>[] }>(
      '{ customEmoji { zulipId name sourceUrl stillUrl deactivated authorId author { fullName } } }',
      {},
      { as: demoUser('cordelia').email },
    );
    expect(errors).toBeUndefined();
    expect(data!.customEmoji).toEqual([
      {
        zulipId: '7', name: 'octopus', sourceUrl: new URL(`/user_avatars/${store.realm.id}/emoji/images/7.png`, h.zulipUrl).href, stillUrl: null,
        deactivated: false, authorId: h.userId('hamlet'), author: { fullName: 'King Hamlet' },
      },
    ]);
    expect(h.upstreamRequests.filter((r) => r.path === 'realm/emoji')).toHaveLength(1);
  });

  it('includes deactivated emoji when asked', async () => {
    const { data, errors } = await h.gql<{ customEmoji: { zulipId: string; stillUrl: string | null; author: unknown }[] }>(
      '{ customEmoji(includeDeactivated: true) { zulipId stillUrl author { zulipId } } }',
    );
    expect(errors).toBeUndefined();
    expect(data!.customEmoji.map((e) => e.zulipId)).toEqual(['3', '7']);
    expect(data!.customEmoji[0]).toMatchObject({ stillUrl: new URL(`/user_avatars/${store.realm.id}/emoji/images/still/3.png`, h.zulipUrl).href, author: null });
  });

  it('answers UNAUTHENTICATED without credentials', async () => {
    const { errors } = await h.gql('{ customEmoji { zulipId } }', {}, { as: null });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
