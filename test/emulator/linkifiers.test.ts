/**
 * The emulator's linkifier endpoints, driven through src/zulip/routes/linkifiers.ts: listing,
 * validation as Zulip's full_clean does it, the administrator rule, ordering, events and the
 * register state.
 */
import { describe, expect, it } from 'vitest';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../src/zulip/routes/linkifiers.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../helpers/emulator.js';

const ISSUE = { pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/zulip/zulip/issues/{id}' };
const TICKET = { pattern: 'T-(?P<key>[A-Z]+)', urlTemplate: 'https://tickets.example.com/{key}' };

function setup() {
  const t = setupEmulator({ eventTypes: ['realm_linkifiers'] });
  return { ...t, iago: t.as('iago') };
}

describe('linkifiers', () => {
  it('adds linkifiers at the end and lists them to every user, in the documented shape', async () => {
    const { iago, as } = setup();
    const first = await addLinkifier(iago, ISSUE);
    const second = await addLinkifier(iago, TICKET);
    expect(second.id).toBeGreaterThan(first.id);
    const body = await getLinkifiers(as('polonius'));
    expectValidResponse('GET', '/realm/linkifiers', body);
    expect(body.linkifiers).toEqual([
      { id: first.id, pattern: ISSUE.pattern, url_template: ISSUE.urlTemplate },
      { id: second.id, pattern: TICKET.pattern, url_template: TICKET.urlTemplate },
    ]);
  });

  it('refuses changes from anyone but an administrator with UNAUTHORIZED_PRINCIPAL', async () => {
    const { iago, as, store } = setup();
    const { id } = await addLinkifier(iago, ISSUE);
    for (const login of ['shiva', 'hamlet', 'polonius']) {
      const conn = as(login);
      for (const attempt of [
        addLinkifier(conn, TICKET),
        updateLinkifier(conn, { filterId: id, ...TICKET }),
        removeLinkifier(conn, { filterId: id }),
        reorderLinkifiers(conn, { orderedLinkifierIds: [id] }),
      ]) {
        const e = await caughtApiError(attempt);
        expect([e.code, e.message, e.httpStatus]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400]);
      }
    }
    expect(store.linkifiers).toEqual([{ id, pattern: ISSUE.pattern, url_template: ISSUE.urlTemplate }]);
    await addLinkifier(as('desdemona'), TICKET);
    expect(store.linkifiers).toHaveLength(2);
  });

  it('validates the template, the pattern and their groups, and the pattern\u2019s uniqueness', async () => {
    const { iago, store } = setup();
    const cases: [{ pattern: string; urlTemplate: string }, string, Record<string, string[]>][] = [
      [{ pattern: ISSUE.pattern, urlTemplate: 'https://x.com/{id' }, 'Invalid URL template.', { url_template: ['Invalid URL template.'] }],
      [{ pattern: '#(?P<id>[0-9]+', urlTemplate: ISSUE.urlTemplate }, '', {}],
      [
        { pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x.com/{id}/{org}' },
        "Group 'org' in URL template is not present in linkifier pattern.",
        { __all__: ["Group 'org' in URL template is not present in linkifier pattern."] },
      ],
      [
        { pattern: '(?P<org>[a-z]+)#(?P<id>[0-9]+)', urlTemplate: 'https://x.com/{id}' },
        "Group 'org' in linkifier pattern is not present in URL template.",
        { __all__: ["Group 'org' in linkifier pattern is not present in URL template."] },
      ],
    ];
    for (const [definition, message, errors] of cases) {
      const e = await caughtApiError(addLinkifier(iago, definition));
      expect(e.code).toBe('BAD_REQUEST');
      if (message === '') {
        expect(e.message).toMatch(/^Bad regular expression: /);
        expect(e.data.errors).toEqual({ __all__: [e.message] });
      } else {
        expect([e.message, e.data.errors]).toEqual([message, errors]);
      }
    }
    await addLinkifier(iago, ISSUE);
    const duplicate = await caughtApiError(addLinkifier(iago, { ...ISSUE, urlTemplate: 'https://y.com/{id}' }));
    expect(duplicate.message).toBe('Realm filter with this Realm and Pattern already exists.');
    expect(store.linkifiers).toHaveLength(1);
  });

  it('updates in place and removes, with "Linkifier not found." for an unknown ID', async () => {
    const { iago, store } = setup();
    const { id } = await addLinkifier(iago, ISSUE);
    const other = await addLinkifier(iago, TICKET);
    await updateLinkifier(iago, { filterId: id, pattern: 'PR(?P<id>[0-9]+)', urlTemplate: 'https://x.com/pull/{id}' });
    // Updating a linkifier to its own pattern is not a duplicate.
    await updateLinkifier(iago, { filterId: id, pattern: 'PR(?P<id>[0-9]+)', urlTemplate: 'https://x.com/pulls/{id}' });
    expect(store.linkifiers.map((l) => [l.id, l.url_template])).toEqual([[id, 'https://x.com/pulls/{id}'], [other.id, TICKET.urlTemplate]]);
    for (const attempt of [updateLinkifier(iago, { filterId: 999, ...ISSUE }), removeLinkifier(iago, { filterId: 999 })]) {
      const e = await caughtApiError(attempt);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Linkifier not found.']);
    }
    await removeLinkifier(iago, { filterId: id });
    expect(store.linkifiers.map((l) => l.id)).toEqual([other.id]);
  });

  it('reorders when every linkifier is named exactly once', async () => {
    const { iago, store } = setup();
    const a = (await addLinkifier(iago, ISSUE)).id;
    const b = (await addLinkifier(iago, TICKET)).id;
    const duplicated = await caughtApiError(reorderLinkifiers(iago, { orderedLinkifierIds: [a, a, b] }));
    expect(duplicated.message).toBe('The ordered list must not contain duplicated linkifiers');
    for (const ids of [[a], [a, b, 999]]) {
      const e = await caughtApiError(reorderLinkifiers(iago, { orderedLinkifierIds: ids }));
      expect(e.message).toBe('The ordered list must enumerate all existing linkifiers exactly once');
    }
    await reorderLinkifiers(iago, { orderedLinkifierIds: [b, a] });
    expect(store.linkifiers.map((l) => l.id)).toEqual([b, a]);
  });

  it('sends every active user the whole list after each change, and serves it at register', async () => {
    const { iago, listen, as } = setup();
    const drain = await listen('hamlet');
    const { id } = await addLinkifier(iago, ISSUE);
    await removeLinkifier(iago, { filterId: id });
    const events = await drain();
    expect(events.map((e) => e.realm_linkifiers)).toEqual([[{ id, pattern: ISSUE.pattern, url_template: ISSUE.urlTemplate }], []]);
    await addLinkifier(iago, TICKET);
    const state = await as('hamlet').request<{ realm_linkifiers: unknown[] }>('register', 'POST', 'register', {});
    expect(state.realm_linkifiers).toEqual([expect.objectContaining({ pattern: TICKET.pattern })]);
  });
});
