/**
 * The emulator's navigation-view endpoints, driven through src/zulip/routes/navigation-views.ts:
 * built-in and custom views, uniqueness, the not-found answer, the events and the register state.
 */
import { describe, expect, it } from 'vitest';
import { addNavigationView, editNavigationView, getNavigationViews, removeNavigationView } from '../../src/zulip/routes/navigation-views.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { json, raw } from '../../src/zulip/params.js';

function setup() {
  const t = setupEmulator({ settings: { featureLevel: 390 } });
  return { ...t, hamlet: t.as('hamlet') };
}

describe('navigation views', () => {
  it('adds a built-in and a custom view, lists them in order and shows each user only their own', async () => {
    const { hamlet, as } = setup();
    expect(await getNavigationViews(hamlet)).toMatchObject({ navigation_views: [] });
    await addNavigationView(hamlet, { fragment: ' inbox ', isPinned: false });
    await addNavigationView(hamlet, { fragment: 'narrow/is/alerted', isPinned: true, name: 'Alert words' });
    expect((await getNavigationViews(hamlet)).navigation_views).toEqual([
      { fragment: 'inbox', is_pinned: false, name: null },
      { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert words' },
    ]);
    expect((await getNavigationViews(as('iago'))).navigation_views).toEqual([]);
  });

  it('refuses a named built-in view, an unnamed custom view, blanks, duplicates and a missing is_pinned', async () => {
    const { hamlet } = setup();
    await addNavigationView(hamlet, { fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' });
    const cases: [Promise<unknown>, string][] = [
      [addNavigationView(hamlet, { fragment: 'inbox', isPinned: true, name: 'Mine' }), 'Built-in views cannot have a custom name.'],
      [addNavigationView(hamlet, { fragment: 'narrow/is/private', isPinned: true }), 'Custom views must have a valid name.'],
      [addNavigationView(hamlet, { fragment: '  ', isPinned: true, name: 'X' }), 'fragment cannot be blank'],
      [addNavigationView(hamlet, { fragment: 'narrow/is/private', isPinned: true, name: ' ' }), 'name cannot be blank'],
      [addNavigationView(hamlet, { fragment: 'narrow/is/alerted', isPinned: false, name: 'Other' }), 'Navigation view already exists.'],
      [addNavigationView(hamlet, { fragment: 'narrow/is/private', isPinned: false, name: 'Alerts' }), 'Navigation view already exists.'],
      [hamlet.request('add-navigation-view', 'POST', 'navigation_views', { fragment: raw('inbox') }), "Missing 'is_pinned' argument"],
    ];
    for (const [call, message] of cases) {
      const e = await caughtApiError(call);
      expect(e.message).toBe(message);
      expect(e.httpStatus).toBe(400);
    }
    expect((await getNavigationViews(hamlet)).navigation_views).toHaveLength(1);
  });

  it('edits the pin and the name of a custom view (fragment with slashes in the path) and renames no built-in view', async () => {
    const { hamlet } = setup();
    await addNavigationView(hamlet, { fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' });
    await addNavigationView(hamlet, { fragment: 'recent', isPinned: true });
    await editNavigationView(hamlet, { fragment: 'narrow/is/alerted', isPinned: false, name: 'Alert words' });
    await editNavigationView(hamlet, { fragment: 'recent', isPinned: false });
    expect((await getNavigationViews(hamlet)).navigation_views).toEqual([
      { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alert words' },
      { fragment: 'recent', is_pinned: false, name: null },
    ]);
    const builtIn = await caughtApiError(editNavigationView(hamlet, { fragment: 'recent', name: 'Recent' }));
    expect(builtIn.message).toBe('Built-in views cannot have a custom name.');
  });

  it('answers BAD_REQUEST with HTTP 404 for an unknown fragment, on edit and remove', async () => {
    const { hamlet } = setup();
    for (const call of [editNavigationView(hamlet, { fragment: 'narrow/is/none', isPinned: true }), removeNavigationView(hamlet, { fragment: 'inbox' })]) {
      const e = await caughtApiError(call);
      expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Navigation view does not exist.', 404]);
    }
  });

  it('removes a view and tells only its user, with add, update and remove events', async () => {
    const t = setup();
    const hamletEvents = await t.listen('hamlet', ['navigation_view']);
    const iagoEvents = await t.listen('iago', ['navigation_view']);
    await addNavigationView(t.hamlet, { fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' });
    await editNavigationView(t.hamlet, { fragment: 'narrow/is/alerted', name: 'Alert words' });
    await removeNavigationView(t.hamlet, { fragment: 'narrow/is/alerted' });
    expect((await getNavigationViews(t.hamlet)).navigation_views).toEqual([]);
    expect((await hamletEvents()).map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' } },
      { type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { name: 'Alert words' } },
      { type: 'navigation_view', op: 'remove', fragment: 'narrow/is/alerted' },
    ]);
    expect(await iagoEvents()).toEqual([]);
  });

  it('lists the views in the register state', async () => {
    const { hamlet } = setup();
    await addNavigationView(hamlet, { fragment: 'feed', isPinned: true });
    const state = await hamlet.request<{ navigation_views: unknown }>('register-queue', 'POST', 'register', { fetch_event_types: json(['navigation_views']) });
    expect(state.navigation_views).toEqual([{ fragment: 'feed', is_pinned: true, name: null }]);
  });
});
