/**
 * The emulator's saved-snippets endpoints, driven through src/zulip/routes/saved-snippets.ts:
 * ownership, Zulip's stripping and validation, the events and the register state, and the
 * feature levels below which the endpoints do not exist.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { json } from '../../src/zulip/params.js';
import { createSavedSnippet, deleteSavedSnippet, editSavedSnippet, getSavedSnippets } from '../../src/zulip/routes/saved-snippets.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const START = Date.UTC(2026, 0, 1);
const NOW = START / 1000;

function setup(settings: Partial<EmulatorSettings> = {}) {
  const t = setupEmulator({ clock: new ManualClock(START), settings, eventTypes: ['saved_snippets'] });
  return { ...t, hamlet: t.as('hamlet'), iago: t.as('iago') };
}

describe('saved snippets', () => {
  it('creates, lists (oldest first), edits and deletes, with an event for each', async () => {
    const { hamlet, listen } = setup();
    const drain = await listen('hamlet');
    const { saved_snippet_id: first } = await createSavedSnippet(hamlet, { title: '  Welcome ', content: '\n**Hello** there.  ' });
    const { saved_snippet_id: second } = await createSavedSnippet(hamlet, { title: 'Bye', content: 'See you.' });
    expect(second).toBeGreaterThan(first);
    expect((await getSavedSnippets(hamlet)).saved_snippets).toEqual([
      { id: first, title: 'Welcome', content: '**Hello** there.', date_created: NOW },
      { id: second, title: 'Bye', content: 'See you.', date_created: NOW },
    ]);

    await editSavedSnippet(hamlet, { savedSnippetId: first, content: ' Hi! ' });
    await deleteSavedSnippet(hamlet, { savedSnippetId: second });
    expect((await getSavedSnippets(hamlet)).saved_snippets).toEqual([{ id: first, title: 'Welcome', content: 'Hi!', date_created: NOW }]);
    expect((await drain()).map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'saved_snippets', op: 'add', saved_snippet: { id: first, title: 'Welcome', content: '**Hello** there.', date_created: NOW } },
      { type: 'saved_snippets', op: 'add', saved_snippet: { id: second, title: 'Bye', content: 'See you.', date_created: NOW } },
      { type: 'saved_snippets', op: 'update', saved_snippet: { id: first, title: 'Welcome', content: 'Hi!', date_created: NOW } },
      { type: 'saved_snippets', op: 'remove', saved_snippet_id: second },
    ]);
  });

  it('keeps each user\u2019s snippets private: another user\u2019s is "does not exist" (404)', async () => {
    const { hamlet, iago, listen } = setup();
    const { saved_snippet_id: id } = await createSavedSnippet(hamlet, { title: 'Mine', content: 'Private.' });
    const drain = await listen('iago');
    expect((await getSavedSnippets(iago)).saved_snippets).toEqual([]);
    for (const attempt of [editSavedSnippet(iago, { savedSnippetId: id, title: 'Stolen' }), deleteSavedSnippet(iago, { savedSnippetId: id })]) {
      const e = await caughtApiError(attempt);
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 404, 'Saved snippet does not exist.']);
    }
    expect((await getSavedSnippets(hamlet)).saved_snippets).toEqual([{ id, title: 'Mine', content: 'Private.', date_created: NOW }]);
    expect(await drain()).toEqual([]);
  });

  it.each([
    [{ title: '   ', content: 'x' }, 'Title cannot be empty.'],
    [{ title: 't', content: ' \n ' }, 'Content cannot be empty.'],
    [{ title: 'x'.repeat(61), content: 'x' }, 'title is too long (limit: 60 characters)'],
  ])('refuses %j with BAD_REQUEST and stores nothing', async (params, msg) => {
    const { hamlet, store, userId } = setup();
    const e = await caughtApiError(createSavedSnippet(hamlet, params));
    expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, msg]);
    expect(store.savedSnippets.get(userId('hamlet'))?.size ?? 0).toBe(0);
  });

  it('refuses content over the message length limit', async () => {
    const { hamlet } = setup({ maxMessageLength: 20 });
    const e = await caughtApiError(createSavedSnippet(hamlet, { title: 't', content: 'x'.repeat(21) }));
    expect(e.message).toBe('content is too long (limit: 20 characters)');
  });

  it('answers an edit without changes with success and no event, even for an unknown ID (as Zulip)', async () => {
    const { hamlet, listen } = setup();
    const drain = await listen('hamlet');
    await expect(editSavedSnippet(hamlet, { savedSnippetId: 999 })).resolves.toMatchObject({ result: 'success' });
    expect(await drain()).toEqual([]);
    const e = await caughtApiError(editSavedSnippet(hamlet, { savedSnippetId: 999, title: 'x' }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Saved snippet does not exist.']);
  });

  it('returns the snippets in the register response when asked for', async () => {
    const { hamlet } = setup();
    const { saved_snippet_id: id } = await createSavedSnippet(hamlet, { title: 'T', content: 'C' });
    const state = await hamlet.request<Record<string, unknown>>('register-queue', 'POST', 'register', { fetch_event_types: json(['saved_snippets']) });
    expect(state.saved_snippets).toEqual([{ id, title: 'T', content: 'C', date_created: NOW }]);
  });

  it('has no saved snippets below feature level 297, and no editing below 368', async () => {
    const old = setup({ featureLevel: 296 }).hamlet;
    const e = await caughtApiError(getSavedSnippets(old));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
    const { hamlet } = setup({ featureLevel: 367 });
    const { saved_snippet_id: id } = await createSavedSnippet(hamlet, { title: 'T', content: 'C' });
    const edit = await caughtApiError(editSavedSnippet(hamlet, { savedSnippetId: id, title: 'U' }));
    expect([edit.httpStatus, edit.message]).toEqual([404, 'Not Found']);
  });
});
