/** Custom emoji end to end: the `customEmoji` query, its author link, its filter and its errors. */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createHarness, setupHarness } from '../../helpers/harness.js';
import { postMultipart, testBytes } from '../../helpers/uploads.js';

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

describe('uploadCustomEmoji and deactivateCustomEmoji', () => {
  const UPLOAD_EMOJI = 'mutation($name: String!, $file: Upload!) { uploadCustomEmoji(name: $name, file: $file) { zulipId name deactivated authorId } }';
  const DEACTIVATE = 'mutation($name: String!) { deactivateCustomEmoji(name: $name) { zulipId deactivated } }';

  it('streams the image, answers the new emoji; only an administrator or the author deactivates it', async () => {
    const h = setupHarness();
    await h.ready;
    h.resetUpstreamRequests();
    const added = await postMultipart(h.url, UPLOAD_EMOJI, { bytes: testBytes(2000), name: 'wave.png', type: 'image/png' }, { as: demoUser('hamlet'), variables: { name: 'big wave' } });
    expect(added.errors).toBeUndefined();
    expect(added.data!.uploadCustomEmoji).toMatchObject({ name: 'big_wave', deactivated: false, authorId: h.userId('hamlet') });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST realm/emoji/big_wave', 'GET realm/emoji']);
    const refused = await h.gql(DEACTIVATE, { name: 'big_wave' }, { as: demoUser('cordelia').email });
    expect(refused.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator or emoji author', extensions: { code: 'BAD_REQUEST' } });
    const done = await h.gql(DEACTIVATE, { name: 'big_wave' }, { as: demoUser('hamlet').email });
    expect(done.data?.deactivateCustomEmoji).toMatchObject({ deactivated: true });
    const again = await h.gql(DEACTIVATE, { name: 'big_wave' }, { as: demoUser('iago').email });
    expect(again.errors?.[0]?.message).toBe("Emoji 'big_wave' does not exist");
  });

  it('refuses an image over 5 MiB with UPLOAD_TOO_LARGE and an empty name, before any upstream call', async () => {
    const h = setupHarness();
    await h.ready;
    h.resetUpstreamRequests();
    const big = await postMultipart(h.url, UPLOAD_EMOJI, { bytes: testBytes(6 * 1024 * 1024), name: 'big.png' }, { as: demoUser('hamlet'), variables: { name: 'big' } });
    expect(big.errors?.[0]?.extensions).toMatchObject({ code: 'UPLOAD_TOO_LARGE', maxBytes: 5 * 1024 * 1024 });
    const empty = await postMultipart(h.url, UPLOAD_EMOJI, { bytes: testBytes(10), name: 'x.png' }, { as: demoUser('hamlet'), variables: { name: ' ' } });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests).toEqual([]);
  });
});
