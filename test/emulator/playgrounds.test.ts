/**
 * The emulator's code playground endpoints, driven through src/zulip/routes/playgrounds.ts: the
 * administrator rule, validation, unknown IDs, the `realm_playgrounds` events and register state.
 */
import { describe, expect, it } from 'vitest';
import { addCodePlayground, removeCodePlayground } from '../../src/zulip/routes/playgrounds.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const PYTHON = { name: 'Python playground', pygmentsLanguage: 'Python', urlTemplate: 'https://python.example.com?code={code}' };

function setup() {
  const t = setupEmulator({ eventTypes: ['realm_playgrounds'] });
  return { ...t, iago: t.as('iago') };
}

describe('code playgrounds', () => {
  it('adds trimmed playgrounds, sends the whole list to every active user and serves it at register', async () => {
    const { iago, listen, as } = setup();
    const drain = await listen('hamlet');
    const { id } = await addCodePlayground(iago, { ...PYTHON, name: ' Python playground ' });
    const stored = { id, name: 'Python playground', pygments_language: 'Python', url_template: PYTHON.urlTemplate };
    await removeCodePlayground(iago, { playgroundId: id });
    const { id: second } = await addCodePlayground(iago, PYTHON);
    expect(second).toBeGreaterThan(id);
    expect((await drain()).map((e) => e.realm_playgrounds)).toEqual([[stored], [], [{ ...stored, id: second }]]);
    const state = await as('polonius').request<{ realm_playgrounds: unknown[] }>('register', 'POST', 'register', {});
    expect(state.realm_playgrounds).toEqual([{ ...stored, id: second }]);
  });

  it('refuses changes from non-administrators with UNAUTHORIZED_PRINCIPAL', async () => {
    const { iago, as, store } = setup();
    const { id } = await addCodePlayground(iago, PYTHON);
    for (const login of ['shiva', 'hamlet']) {
      for (const attempt of [addCodePlayground(as(login), { ...PYTHON, name: 'Other' }), removeCodePlayground(as(login), { playgroundId: id })]) {
        const e = await caughtApiError(attempt);
        expect([e.code, e.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
      }
    }
    expect(store.playgrounds.map((p) => p.id)).toEqual([id]);
  });

  it('validates the language, the template and its variable, and the name per language', async () => {
    const { iago, store } = setup();
    const cases: [Partial<typeof PYTHON>, string][] = [
      [{ pygmentsLanguage: 'Py<thon>' }, 'Invalid characters in pygments language'],
      [{ urlTemplate: 'https://x.com/{code' }, 'Invalid URL template.'],
      [{ urlTemplate: 'https://x.com/{src}' }, '"code" should be the only variable present in the URL template'],
      [{ urlTemplate: 'https://x.com/{code}/{x}' }, '"code" should be the only variable present in the URL template'],
    ];
    for (const [change, message] of cases) {
      const e = await caughtApiError(addCodePlayground(iago, { ...PYTHON, ...change }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
    }
    await addCodePlayground(iago, PYTHON);
    const twice = await caughtApiError(addCodePlayground(iago, { ...PYTHON, urlTemplate: 'https://other.com/{code}' }));
    expect(twice.message).toBe('Realm playground with this Realm, Pygments language and Name already exists.');
    await addCodePlayground(iago, { ...PYTHON, pygmentsLanguage: 'Python3' });
    expect(store.playgrounds).toHaveLength(2);
  });

  it('answers "Invalid playground" for an unknown ID', async () => {
    const { iago } = setup();
    const e = await caughtApiError(removeCodePlayground(iago, { playgroundId: 999 }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid playground']);
  });
});
