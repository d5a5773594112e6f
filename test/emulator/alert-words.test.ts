/**
 * The emulator's alert-words endpoints, driven through src/zulip/routes/alert-words.ts: the list,
 * trimming and case-insensitive de-duplication, case-insensitive removal, the length limit, the
 * `alert_words` event and the register state.
 */
import { describe, expect, it } from 'vitest';
import { addAlertWords, getAlertWords, removeAlertWords } from '../../src/zulip/routes/alert-words.js';
import { json } from '../../src/zulip/params.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../helpers/emulator.js';

describe('alert words', () => {
  it('starts empty, adds trimmed words without blanks or case duplicates, and answers with the whole list', async () => {
    const { as } = setupEmulator();
    const hamlet = as('hamlet');
    const empty = await getAlertWords(hamlet);
    expectValidResponse('GET', '/users/me/alert_words', empty);
    expect(empty.alert_words).toEqual([]);
    expect((await addAlertWords(hamlet, { alertWords: [' Denmark ', '', 'ghost'] })).alert_words).toEqual(['Denmark', 'ghost']);
    const added = await addAlertWords(hamlet, { alertWords: ['DENMARK', 'poison', 'Poison'] });
    expectValidResponse('POST', '/users/me/alert_words', added);
    expect(added.alert_words).toEqual(['Denmark', 'ghost', 'Poison']);
    expect((await getAlertWords(hamlet)).alert_words).toEqual(['Denmark', 'ghost', 'Poison']);
    expect((await getAlertWords(as('iago'))).alert_words).toEqual([]);
  });

  it('removes words case-insensitively and ignores unknown ones', async () => {
    const { as } = setupEmulator();
    const hamlet = as('hamlet');
    await addAlertWords(hamlet, { alertWords: ['Denmark', 'ghost'] });
    const removed = await removeAlertWords(hamlet, { alertWords: ['denmark', 'never-added'] });
    expectValidResponse('DELETE', '/users/me/alert_words', removed);
    expect(removed.alert_words).toEqual(['ghost']);
  });

  it('refuses a word over 100 characters, and a parameter that is not a list of strings', async () => {
    const { as, store, userId } = setupEmulator();
    const hamlet = as('hamlet');
    const tooLong = await caughtApiError(addAlertWords(hamlet, { alertWords: ['ok', 'x'.repeat(101)] }));
    expect(tooLong).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, message: 'alert_words[1] is too long (limit: 100 characters)' });
    expect(store.alertWords.get(userId('hamlet')) ?? []).toEqual([]);
    const notList = await caughtApiError(hamlet.request('add-alert-words', 'POST', 'users/me/alert_words', { alert_words: json('ghost') }));
    expect(notList.message).toBe('alert_words is not a list');
    const notString = await caughtApiError(hamlet.request('remove-alert-words', 'DELETE', 'users/me/alert_words', { alert_words: json([3]) }));
    expect(notString.message).toBe('alert_words[0] is not a string');
    // Removal has no length limit.
    expect((await removeAlertWords(hamlet, { alertWords: ['x'.repeat(101)] })).alert_words).toEqual([]);
  });

  it('sends the caller an alert_words event and includes the words in the register state', async () => {
    const t = setupEmulator();
    const drain = await t.listen('hamlet', ['alert_words']);
    const other = await t.listen('iago', ['alert_words']);
    await addAlertWords(t.as('hamlet'), { alertWords: ['ghost'] });
    await removeAlertWords(t.as('hamlet'), { alertWords: ['GHOST'] });
    expect((await drain()).map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'alert_words', alert_words: ['ghost'] },
      { type: 'alert_words', alert_words: [] },
    ]);
    expect(await other()).toEqual([]);
    await addAlertWords(t.as('hamlet'), { alertWords: ['rosemary'] });
    const state = await t.as('hamlet').request<{ alert_words: string[] }>('register', 'POST', 'register', {
      fetch_event_types: json(['alert_words']),
    });
    expect(state.alert_words).toEqual(['rosemary']);
  });
});
