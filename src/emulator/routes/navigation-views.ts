/**
 * Navigation views: `GET /navigation_views`, `POST /navigation_views`, `PATCH` and `DELETE
 * /navigation_views/{fragment}` (https://zulip.com/api/get-navigation-views and neighbours), with
 * the `navigation_view` add/update/remove events and the `navigation_views` register state.
 *
 * As in Zulip (zerver/views/navigation_views.py): fragments and names are stripped and must not be
 * blank; a built-in view (one of {@link BUILT_IN_VIEW_FRAGMENTS}) takes no name and a custom view
 * needs one; fragments and names are unique per user; an unknown fragment is BAD_REQUEST with
 * HTTP 404 ("Navigation view does not exist.").
 */
import type { NavigationView } from '../../zulip/model/navigation-views.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest, missingArgument } from '../errors.js';
import type { Params } from '../http.js';
import type { Store } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** The views the web app has built in; their fragments are fixed and they cannot be renamed. */
export const BUILT_IN_VIEW_FRAGMENTS: readonly string[] = [
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
];

function viewsOf(store: Store, userId: number): Map<string, NavigationView> {
  let views = store.navigationViews.get(userId);
  if (!views) store.navigationViews.set(userId, (views = new Map()));
  return views;
}

/** Zulip's `StringConstraints(strip_whitespace=True, min_length=1)`. */
function nonBlank(name: string, value: string): string {
  const stripped = value.trim();
  if (stripped === '') throw badRequest(`${name} cannot be blank`);
  return stripped;
}

function optName(params: Params): string | undefined {
  const name = params.optStr('name');
  return name === undefined ? undefined : nonBlank('name', name);
}

function alreadyExists(): ApiError {
  return badRequest('Navigation view already exists.');
}

function nameTaken(views: Map<string, NavigationView>, name: string | undefined): boolean {
  return name !== undefined && [...views.values()].some((v) => v.name === name);
}

function serialize(view: NavigationView): NavigationView {
  return { fragment: view.fragment, is_pinned: view.is_pinned, name: view.name ?? null };
}

/** The user's views in creation order, as the list and the register state send them. */
function listOf(store: Store, userId: number): NavigationView[] {
  return [...(store.navigationViews.get(userId)?.values() ?? [])].map(serialize);
}

function notify(ctx: RouteContext, event: Record<string, unknown>): void {
  ctx.events.notify([ctx.user.user_id], { type: 'navigation_view', ...event });
}

/** https://zulip.com/api/add-navigation-view */
function add(ctx: RouteContext): Record<string, unknown> {
  const fragment = nonBlank('fragment', ctx.params.str('fragment'));
  const isPinned = ctx.params.optBool('is_pinned');
  if (isPinned === undefined) throw missingArgument('is_pinned');
  const name = optName(ctx.params);
  if (BUILT_IN_VIEW_FRAGMENTS.includes(fragment)) {
    if (name !== undefined) throw badRequest('Built-in views cannot have a custom name.');
  } else if (name === undefined) {
    throw badRequest('Custom views must have a valid name.');
  }
  const views = viewsOf(ctx.store, ctx.user.user_id);
  if (views.has(fragment) || nameTaken(views, name)) throw alreadyExists();
  const view: NavigationView = { fragment, is_pinned: isPinned, name: name ?? null };
  views.set(fragment, view);
  notify(ctx, { op: 'add', navigation_view: serialize(view) });
  return {};
}

function existing(ctx: RouteContext, fragment: string): NavigationView {
  const view = ctx.store.navigationViews.get(ctx.user.user_id)?.get(fragment);
  if (!view) throw new ApiError('BAD_REQUEST', 'Navigation view does not exist.', 404);
  return view;
}

/** https://zulip.com/api/edit-navigation-view */
function edit(ctx: RouteContext): Record<string, unknown> {
  const fragment = nonBlank('fragment', ctx.path.fragment ?? '');
  const isPinned = ctx.params.optBool('is_pinned');
  const name = optName(ctx.params);
  if (BUILT_IN_VIEW_FRAGMENTS.includes(fragment) && name !== undefined) throw badRequest('Built-in views cannot have a custom name.');
  if (nameTaken(viewsOf(ctx.store, ctx.user.user_id), name)) throw alreadyExists();
  const view = existing(ctx, fragment);
  const data: Partial<NavigationView> = {};
  if (isPinned !== undefined) data.is_pinned = view.is_pinned = isPinned;
  if (name !== undefined) data.name = view.name = name;
  notify(ctx, { op: 'update', fragment, data });
  return {};
}

/** https://zulip.com/api/remove-navigation-view */
function remove(ctx: RouteContext): Record<string, unknown> {
  const fragment = nonBlank('fragment', ctx.path.fragment ?? '');
  existing(ctx, fragment);
  ctx.store.navigationViews.get(ctx.user.user_id)!.delete(fragment);
  notify(ctx, { op: 'remove', fragment });
  return {};
}

export const routes: Route[] = [
  {
    operation: ops.getNavigationViews,
    handler: (ctx) => ({ navigation_views: listOf(ctx.store, ctx.user.user_id) }),
  },
  { operation: ops.addNavigationView, handler: add },
  { operation: ops.editNavigationView, handler: edit },
  { operation: ops.removeNavigationView, handler: remove },
];

/** The `navigation_views` fetch type of `POST /register`, new with the operations (feature level 390). */
export function initialState(ctx: StateContext): Record<string, unknown> {
  if (!ctx.wants('navigation_views') || ctx.settings.featureLevel < ops.getNavigationViews.featureLevel) return {};
  return { navigation_views: listOf(ctx.store, ctx.user.user_id) };
}
