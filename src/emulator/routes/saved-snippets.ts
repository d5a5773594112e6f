/**
 * Saved snippets: `GET/POST /saved_snippets`, `PATCH/DELETE /saved_snippets/{saved_snippet_id}`
 * (https://zulip.com/api/get-saved-snippets and neighbours), with the `saved_snippets`
 * add/update/remove events (https://zulip.com/api/get-events#saved_snippets-add) and the
 * `saved_snippets` register state.
 *
 * As in Zulip (zerver/views/saved_snippets.py): title and content are stripped and must not be
 * empty (the messages are the API description's), the title is at most 60 characters and the
 * content at most the message length limit; an edit with neither changes nothing and sends no
 * event; a snippet is visible only to its owner (another user's is "Saved snippet does not
 * exist.", HTTP 404). A server older than the feature level answers 404 "Not Found", like an
 * unknown route.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { SavedSnippet } from '../../zulip/model/saved-snippets.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import type { Store } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
const MAX_TITLE_LENGTH = 60;

function snippetsOf(store: Store, userId: number): Map<number, SavedSnippet> {
  let snippets = store.savedSnippets.get(userId);
  if (!snippets) store.savedSnippets.set(userId, (snippets = new Map()));
  return snippets;
}

function serialize(s: SavedSnippet): SavedSnippet {
  return { id: s.id, title: s.title, content: s.content, date_created: s.date_created };
}

/** The user's saved snippets, oldest first (Zulip orders them by id). */
export function savedSnippetsOf(store: Store, userId: number): SavedSnippet[] {
  return [...(store.savedSnippets.get(userId)?.values() ?? [])].sort((a, b) => a.id - b.id).map(serialize);
}


/** A stripped, non-empty title or content (`what` is "Title" or "Content"), or undefined when absent. */
function text(ctx: RouteContext, what: 'Title' | 'Content', limit: number): string | undefined {
  const name = what.toLowerCase();
  const value = ctx.params.optStr(name)?.trim();
  if (value === undefined) return undefined;
  if (value === '') throw badRequest(`${what} cannot be empty.`);
  if (value.length > limit) throw badRequest(`${name} is too long (limit: ${limit} characters)`);
  return value;
}

function accessSnippet(ctx: RouteContext): SavedSnippet {
  const snippet = ctx.store.savedSnippets.get(ctx.user.user_id)?.get(ctx.pathInt('saved_snippet_id'));
  if (!snippet) throw new ApiError('BAD_REQUEST', 'Saved snippet does not exist.', 404);
  return snippet;
}

function notify(ctx: RouteContext, event: Record<string, unknown>): void {
  ctx.events.notify([ctx.user.user_id], { type: 'saved_snippets', ...event });
}

/** https://zulip.com/api/create-saved-snippet */
function create(ctx: RouteContext): Record<string, unknown> {
  const content = text(ctx, 'Content', ctx.settings.maxMessageLength) ?? ctx.params.str('content');
  const title = text(ctx, 'Title', MAX_TITLE_LENGTH) ?? ctx.params.str('title');
  const snippet: SavedSnippet = { id: ctx.store.nextId('saved_snippet'), title, content, date_created: Math.floor(ctx.nowSeconds()) };
  snippetsOf(ctx.store, ctx.user.user_id).set(snippet.id, snippet);
  notify(ctx, { op: 'add', saved_snippet: serialize(snippet) });
  return { saved_snippet_id: snippet.id };
}

/** https://zulip.com/api/edit-saved-snippet */
function edit(ctx: RouteContext): Record<string, unknown> {
  const content = text(ctx, 'Content', ctx.settings.maxMessageLength);
  const title = text(ctx, 'Title', MAX_TITLE_LENGTH);
  // Zulip answers before looking the snippet up, so that no spurious event is sent.
  if (title === undefined && content === undefined) return {};
  const snippet = accessSnippet(ctx);
  if (title !== undefined) snippet.title = title;
  if (content !== undefined) snippet.content = content;
  notify(ctx, { op: 'update', saved_snippet: serialize(snippet) });
  return {};
}

/** https://zulip.com/api/delete-saved-snippet */
function remove(ctx: RouteContext): Record<string, unknown> {
  const snippet = accessSnippet(ctx);
  ctx.store.savedSnippets.get(ctx.user.user_id)!.delete(snippet.id);
  notify(ctx, { op: 'remove', saved_snippet_id: snippet.id });
  return {};
}

export const routes: Route[] = [
  {
    operation: ops.getSavedSnippets,
    handler: (ctx) => {
      return { saved_snippets: savedSnippetsOf(ctx.store, ctx.user.user_id) };
    },
  },
  { operation: ops.createSavedSnippet, handler: create },
  { operation: ops.editSavedSnippet, handler: edit },
  { operation: ops.deleteSavedSnippet, handler: remove },
];

/** The `saved_snippets` fetch type of `POST /register` (from feature level 297). */
export function initialState(ctx: StateContext): Record<string, unknown> {
  // TODO(server-10): savedSnippets (297); drop the older branch once every supported server has it.
  if (!ctx.wants('saved_snippets') || ctx.settings.featureLevel < featureLevels.savedSnippets) return {};
  return { saved_snippets: savedSnippetsOf(ctx.store, ctx.user.user_id) };
}
