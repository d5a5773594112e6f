/**
 * Linkifiers: `GET /realm/linkifiers`, `POST /realm/filters`, `PATCH` and `DELETE
 * /realm/filters/{filter_id}` and `PATCH /realm/linkifiers` (https://zulip.com/api/get-linkifiers
 * and neighbours), the `realm_linkifiers` event and register state.
 *
 * As in Zulip (zerver/views/realm_linkifiers.py, zerver/models/linkifiers.py): any user may list
 * them, only organization administrators change them; a change is validated as Django's
 * `full_clean` does it (the URL template's own check, then the pattern against the template's
 * variables, then uniqueness of the pattern), failing with the first message and an `errors` map;
 * a new linkifier goes last; a reorder must name every linkifier exactly once.
 */
import type { Linkifier } from '../../zulip/model/linkifiers.js';
import { activeUserIds, requireRealmAdmin } from '../admin.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import { checkIntArray } from '../http.js';
import type { Store } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const NON_FIELD = '__all__';

/** An RFC 6570 variable list: names of letters, digits, `_`, dots and %-escapes, with `:n` or `*`. */
const VARSPEC = String.raw`(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?`;
const EXPRESSION = new RegExp(String.raw`^\{[+#./;?&]?${VARSPEC}(?:,${VARSPEC})*\}`);
/** Literal characters RFC 6570 allows outside expressions (besides %-escapes). */
const LITERAL = /^[^\u0000-\u0020"'%<>\\^`{|}\u007f]/;

/** The variable names of a valid RFC 6570 template, or null when it is not one (uri_template.validate). */
export function urlTemplateVariables(template: string): Set<string> | null {
  const names = new Set<string>();
  let rest = template;
  while (rest.length > 0) {
    const expression = EXPRESSION.exec(rest)?.[0];
    if (expression) {
      for (const spec of expression.slice(1, -1).replace(/^[+#./;?&]/, '').split(',')) names.add(spec.replace(/(:\d+|\*)$/, ''));
      rest = rest.slice(expression.length);
    } else if (/^%[0-9A-Fa-f]{2}/.test(rest)) {
      rest = rest.slice(3);
    } else if (LITERAL.test(rest)) {
      rest = rest.slice(1);
    } else {
      return null;
    }
  }
  return names;
}

/** The named groups of a pattern (Python's `(?P<name>...)`), or the reason it does not compile. */
export function patternGroups(pattern: string): { groups: Set<string> } | { error: string } {
  try {
    new RegExp(pattern.replace(/\(\?P</g, '(?<'));
  } catch (error) {
    return { error: (error as Error).message.replace(/^.*: /, '') };
  }
  return { groups: new Set([...pattern.matchAll(/\(\?P<([A-Za-z_]\w*)>/g)].map((m) => m[1]!)) };
}

/** Django's full_clean of a RealmFilter: the errors by field, in Zulip's order. */
function linkifierErrors(store: Store, pattern: string, urlTemplate: string, exceptId?: number): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  const add = (field: string, message: string) => errors.set(field, [...(errors.get(field) ?? []), message]);
  const variables = urlTemplateVariables(urlTemplate);
  if (variables === null) add('url_template', 'Invalid URL template.');
  const compiled = patternGroups(pattern);
  if ('error' in compiled) {
    add(NON_FIELD, `Bad regular expression: ${compiled.error}`);
  } else if (variables !== null) {
    const missingInPattern = [...variables].filter((v) => !compiled.groups.has(v)).sort();
    const missingInTemplate = [...compiled.groups].filter((g) => !variables.has(g)).sort();
    if (missingInPattern.length > 0) add(NON_FIELD, `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`);
    else if (missingInTemplate.length > 0) add(NON_FIELD, `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`);
  }
  if (errors.size === 0 && store.linkifiers.some((l) => l.pattern === pattern && l.id !== exceptId)) {
    add(NON_FIELD, 'Realm filter with this Realm and Pattern already exists.');
  }
  return errors;
}

/** Zulip's ValidationFailureError: the first message, and every message by field. */
function validate(store: Store, pattern: string, urlTemplate: string, exceptId?: number): void {
  const errors = linkifierErrors(store, pattern, urlTemplate, exceptId);
  if (errors.size === 0) return;
  throw badRequest([...errors.values()][0]![0]!, { errors: Object.fromEntries(errors) });
}

export function linkifiersOf(store: Store): Linkifier[] {
  return store.linkifiers.map((l) => ({ ...l }));
}

function notify(ctx: RouteContext): void {
  ctx.events.notify(activeUserIds(ctx.store), { type: 'realm_linkifiers', realm_linkifiers: linkifiersOf(ctx.store) });
}

function accessLinkifier(ctx: RouteContext): Linkifier {
  const linkifier = ctx.store.linkifiers.find((l) => l.id === ctx.pathInt('filter_id'));
  if (!linkifier) throw badRequest('Linkifier not found.');
  return linkifier;
}

/** https://zulip.com/api/add-linkifier */
function add(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const pattern = ctx.params.str('pattern');
  const urlTemplate = ctx.params.str('url_template');
  validate(ctx.store, pattern, urlTemplate);
  const linkifier: Linkifier = { id: ctx.store.nextId('linkifier'), pattern, url_template: urlTemplate };
  ctx.store.linkifiers.push(linkifier);
  notify(ctx);
  return { id: linkifier.id };
}

/** https://zulip.com/api/update-linkifier */
function update(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const pattern = ctx.params.str('pattern');
  const urlTemplate = ctx.params.str('url_template');
  const linkifier = accessLinkifier(ctx);
  validate(ctx.store, pattern, urlTemplate, linkifier.id);
  Object.assign(linkifier, { pattern, url_template: urlTemplate });
  notify(ctx);
  return {};
}

/** https://zulip.com/api/remove-linkifier */
function remove(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const linkifier = accessLinkifier(ctx);
  ctx.store.linkifiers = ctx.store.linkifiers.filter((l) => l !== linkifier);
  notify(ctx);
  return {};
}

/** https://zulip.com/api/reorder-linkifiers (Zulip's check_reorder_linkifiers). */
function reorder(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const ids = checkIntArray('ordered_linkifier_ids', ctx.params.json('ordered_linkifier_ids'));
  if (new Set(ids).size < ids.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
  const byId = new Map(ctx.store.linkifiers.map((l) => [l.id, l]));
  if (ids.length !== byId.size || ids.some((id) => !byId.has(id))) {
    throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  }
  ctx.store.linkifiers = ids.map((id) => byId.get(id)!);
  notify(ctx);
  return {};
}

export const routes: Route[] = [
  { operation: ops.getLinkifiers, handler: (ctx) => ({ linkifiers: linkifiersOf(ctx.store) }) },
  { operation: ops.reorderLinkifiers, handler: reorder },
  { operation: ops.addLinkifier, handler: add },
  { operation: ops.updateLinkifier, handler: update },
  { operation: ops.removeLinkifier, handler: remove },
];

/** The `realm_linkifiers` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('realm_linkifiers') ? { realm_linkifiers: linkifiersOf(ctx.store) } : {};
}
