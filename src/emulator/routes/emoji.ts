/**
 * Custom emoji: `GET /realm/emoji` (https://zulip.com/api/get-custom-emoji) and the `realm_emoji`
 * register key. Every member sees every emoji, deactivated ones included (clients still render
 * them in old messages).
 */
import type { RealmEmoji } from '../../zulip/model/emoji.js';
import type { Route, StateContext } from '../context.js';
import type { Store } from '../store.js';

/** The organization's custom emoji as Zulip lists them, by ID. */
function realmEmoji(store: Store): Record<string, RealmEmoji> {
  const byId: Record<string, RealmEmoji> = {};
  for (const e of [...store.customEmoji.values()].sort((a, b) => a.id - b.id)) {
    const id = String(e.id);
    const file = `/user_avatars/${store.realm.id}/emoji/images/${e.file_name}`;
    byId[id] = {
      id,
      name: e.name,
      source_url: file,
      still_url: e.still_file_name ? `/user_avatars/${store.realm.id}/emoji/images/still/${e.still_file_name}` : null,
      deactivated: e.deactivated,
      author_id: e.author_id,
    };
  }
  return byId;
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('realm_emoji') ? { realm_emoji: realmEmoji(ctx.store) } : {};
}

export const routes: Route[] = [{ method: 'GET', path: '/realm/emoji', handler: ({ store }) => ({ emoji: realmEmoji(store) }) }];
