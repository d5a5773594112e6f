/**
 * Custom emoji: `GET /realm/emoji` (https://zulip.com/api/get-custom-emoji) and the `realm_emoji`
 * register key. Every member sees every emoji, deactivated ones included (clients still render
 * them in old messages).
 */
import type { RealmEmoji } from '../../zulip/model/emoji.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import { Role, type Store } from '../store.js';
import { uploadedFile } from './uploads.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

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

/** Tells every active user of the new emoji list (Zulip's `realm_emoji` `update` event). */
function notifyEmoji(ctx: RouteContext): void {
  const users = [...ctx.store.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
  ctx.events.notify(users, { type: 'realm_emoji', op: 'update', realm_emoji: realmEmoji(ctx.store) });
}

/** Zulip's zerver/lib/emoji.py `check_valid_emoji_name`. */
function checkEmojiName(name: string): void {
  if (name === '') throw badRequest('Emoji name is missing');
  if (name.length > 60) throw badRequest('Emoji name is too long');
  if (!/^[0-9a-z_-]*[0-9a-z]$/.test(name)) throw badRequest('Invalid characters in emoji name');
}

function activeEmoji(store: Store, name: string) {
  return [...store.customEmoji.values()].find((e) => e.name === name && !e.deactivated);
}

/** Zulip's zerver/views/realm_emoji.py `upload_emoji`: members may add emoji (Zulip's default permission). */
async function uploadEmoji(ctx: RouteContext) {
  const { store, user, settings } = ctx;
  const name = (ctx.path.emoji_name ?? '').trim().replace(/ /g, '_');
  checkEmojiName(name);
  if (user.role >= Role.GUEST) throw badRequest('Insufficient permission');
  if (activeEmoji(store, name)) throw badRequest('A custom emoji with this name already exists.');
  const { file, bytes } = await uploadedFile(ctx, settings.maxEmojiFileSizeMib, { none: 'You must upload exactly one file.', many: 'You must upload exactly one file.' });
  const id = store.nextId('emoji');
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? 'png';
  const fileName = `${id}.${extension}`;
  store.customEmoji.set(id, { id, name, file_name: fileName, still_file_name: null, deactivated: false, author_id: user.user_id });
  store.uploadedFiles.set(`${store.realm.id}/emoji/images/${fileName}`, { bytes, content_type: file.type || 'application/octet-stream' });
  notifyEmoji(ctx);
  return {};
}

/** Zulip's `delete_emoji` and `check_remove_custom_emoji`: an administrator, or the emoji's author. */
function deactivateEmoji(ctx: RouteContext) {
  const { store, user } = ctx;
  const name = ctx.path.emoji_name ?? '';
  const emoji = activeEmoji(store, name);
  if (!emoji) throw badRequest(`Emoji '${name}' does not exist`);
  if (!store.isAdmin(user) && emoji.author_id !== user.user_id) throw badRequest('Must be an organization administrator or emoji author');
  emoji.deactivated = true;
  notifyEmoji(ctx);
  return {};
}

export const routes: Route[] = [
  { operation: ops.getCustomEmoji, handler: ({ store }) => ({ emoji: realmEmoji(store) }) },
  { operation: ops.uploadCustomEmoji, handler: uploadEmoji },
  { operation: ops.deactivateCustomEmoji, handler: deactivateEmoji },
];
