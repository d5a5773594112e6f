/**
 * Code playgrounds: `POST /realm/playgrounds` and `DELETE /realm/playgrounds/{playground_id}`
 * (https://zulip.com/api/add-code-playground), the `realm_playgrounds` event and register state.
 *
 * As in Zulip (zerver/views/realm_playgrounds.py, zerver/models/realm_playgrounds.py): only
 * organization administrators change them; the language may hold only letters, digits, spaces and
 * `_+-./#`; the three fields are trimmed; the URL template must be valid and have `code` as its
 * only variable; a name is unique per language; an unknown ID is "Invalid playground".
 */
import type { CodePlayground } from '../../zulip/model/playgrounds.js';
import { activeUserIds, requireRealmAdmin } from '../admin.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { Store } from '../store.js';
import { urlTemplateVariables } from './linkifiers.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

export function playgroundsOf(store: Store): CodePlayground[] {
  return store.playgrounds.map((p) => ({ ...p }));
}

function notify(ctx: RouteContext): void {
  ctx.events.notify(activeUserIds(ctx.store), { type: 'realm_playgrounds', realm_playgrounds: playgroundsOf(ctx.store) });
}

/** Django's full_clean of a RealmPlayground, as Zulip's ValidationFailureError reports it. */
function validate(store: Store, p: Omit<CodePlayground, 'id'>): void {
  const errors = new Map<string, string[]>();
  const variables = urlTemplateVariables(p.url_template);
  if (variables === null) errors.set('url_template', ['Invalid URL template.']);
  else if (variables.size !== 1 || !variables.has('code')) errors.set('__all__', ['"code" should be the only variable present in the URL template']);
  else if (store.playgrounds.some((q) => q.name === p.name && q.pygments_language === p.pygments_language)) {
    errors.set('__all__', ['Realm playground with this Realm, Pygments language and Name already exists.']);
  }
  if (errors.size > 0) throw badRequest([...errors.values()][0]![0]!, { errors: Object.fromEntries(errors) });
}

/** https://zulip.com/api/add-code-playground */
function add(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const name = ctx.params.str('name').trim();
  const language = ctx.params.str('pygments_language');
  const urlTemplate = ctx.params.str('url_template').trim();
  if (!/^[ a-zA-Z0-9_+\-./#]*$/.test(language)) throw badRequest('Invalid characters in pygments language');
  const fields = { name, pygments_language: language.trim(), url_template: urlTemplate };
  validate(ctx.store, fields);
  const playground: CodePlayground = { id: ctx.store.nextId('playground'), ...fields };
  ctx.store.playgrounds.push(playground);
  notify(ctx);
  return { id: playground.id };
}

/** https://zulip.com/api/remove-code-playground */
function remove(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const id = ctx.pathInt('playground_id');
  if (!ctx.store.playgrounds.some((p) => p.id === id)) throw badRequest('Invalid playground');
  ctx.store.playgrounds = ctx.store.playgrounds.filter((p) => p.id !== id);
  notify(ctx);
  return {};
}

export const routes: Route[] = [
  { operation: ops.addCodePlayground, handler: add },
  { operation: ops.removeCodePlayground, handler: remove },
];

/** The `realm_playgrounds` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('realm_playgrounds') ? { realm_playgrounds: playgroundsOf(ctx.store) } : {};
}
