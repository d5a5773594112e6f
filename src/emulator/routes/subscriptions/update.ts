/**
 * `PATCH /users/me/subscriptions` (https://zulip.com/api/update-subscriptions): Zulip's
 * update_subscriptions_backend, the caller's subscribe (`add`) and unsubscribe (`delete`) in one
 * transaction, answering both results merged. The emulator checks the channels to leave before it
 * subscribes, so that a refused `delete` leaves nothing half done, as Zulip's rollback does.
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { Params } from '../../http.js';
import { subscribeHandler } from './subscribe.js';
import { channelsToLeave, unsubscribeHandler } from './unsubscribe.js';

/** The caller's context with `subscriptions` set to one of the lists (the handlers it reuses read that name). */
function withSubscriptions(ctx: RouteContext, list: string): RouteContext {
  return { ...ctx, params: new Params(new Map([['subscriptions', list]])) };
}

export function updateSubscriptionsHandler(ctx: RouteContext): Record<string, unknown> {
  const add = ctx.params.optJson<unknown>('add') ?? [];
  const remove = ctx.params.optJson<unknown>('delete') ?? [];
  const empty = (list: unknown) => Array.isArray(list) && list.length === 0;
  if (empty(add) && empty(remove)) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  const adding = withSubscriptions(ctx, JSON.stringify(add));
  const leaving = withSubscriptions(ctx, JSON.stringify(remove));
  channelsToLeave(leaving);
  const added = empty(add) ? { subscribed: {}, already_subscribed: {} } : subscribeHandler(adding);
  const removed = empty(remove) ? { removed: [], not_removed: [] } : unsubscribeHandler(leaving);
  return { ...added, ...removed };
}
