/**
 * Emoji reactions: `POST /messages/{id}/reactions` (https://zulip.com/api/add-reaction) and
 * `DELETE /messages/{id}/reactions` (https://zulip.com/api/remove-reaction), with the `reaction`
 * add/remove events (https://zulip.com/api/get-events#reaction-add), sent to everyone who received the message plus the
 * reacting user.
 *
 * As in Zulip (zerver/views/reactions.py): without both emoji_code and reaction_type the name is
 * looked up; a second user reacting with an existing emoji "votes" for it (and takes its name);
 * only a new emoji is checked against the emoji tables. The spec's `service_extra_emoji` is
 * accepted as another name of `zulip_extra_emoji` (same namespace) and echoed back as sent.
 * The emulator knows a small table of unicode emoji, Zulip's one extra emoji (`zulip`), and no
 * custom emoji.
 */
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import type { Message, Reaction, Store, User } from '../store.js';
import { accessMessage, messageListeners } from './messages/index.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Unicode emoji by Zulip name: code is the dash-separated hex of the codepoints. Aliases share a code. */
export const UNICODE_EMOJI: Readonly<Record<string, string>> = {
  '+1': '1f44d',
  thumbs_up: '1f44d',
  '-1': '1f44e',
  thumbs_down: '1f44e',
  tada: '1f389',
  heart: '2764',
  smile: '1f604',
  slight_smile: '1f642',
  grinning: '1f600',
  joy: '1f602',
  laughing: '1f606',
  heart_eyes: '1f60d',
  thinking: '1f914',
  cry: '1f622',
  octopus: '1f419',
  rocket: '1f680',
  eyes: '1f440',
  fire: '1f525',
  clap: '1f44f',
  wave: '1f44b',
  pray: '1f64f',
  '100': '1f4af',
  star: '2b50',
  sparkles: '2728',
  coffee: '2615',
  check: '2705',
  cross_mark: '274c',
  warning: '26a0',
  bulb: '1f4a1',
  working_on_it: '1f6e0',
  tm: '2122',
  flag_denmark: '1f1e9-1f1f0',
};

/** Canonical name per unicode code (the first name listed). */
const NAME_BY_CODE = new Map<string, string>();
for (const [name, code] of Object.entries(UNICODE_EMOJI)) if (!NAME_BY_CODE.has(code)) NAME_BY_CODE.set(code, name);

/** Zulip's extra emoji (reaction_type `zulip_extra_emoji`): the code is the name. */
const EXTRA_EMOJI = new Set(['zulip']);

type ReactionType = Reaction['reaction_type'];
const REACTION_TYPES = new Set<string>(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji', 'service_extra_emoji']);

/** The namespace of a reaction type: the spec's `service_extra_emoji` is Zulip's `zulip_extra_emoji`. */
function namespace(type: string): string {
  return type === 'service_extra_emoji' ? 'zulip_extra_emoji' : type;
}

function sameEmoji(r: Reaction, code: string, type: string): boolean {
  return r.emoji_code === code && namespace(r.reaction_type) === namespace(type);
}

/** Zulip's emoji_name_to_emoji_code. */
export function emojiByName(name: string): { code: string; type: ReactionType } {
  const code = UNICODE_EMOJI[name];
  if (code !== undefined) return { code, type: 'unicode_emoji' };
  if (EXTRA_EMOJI.has(name)) return { code: name, type: 'zulip_extra_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

export function checkReactionType(type: string): void {
  if (!REACTION_TYPES.has(type)) throw badRequest('Invalid emoji type.');
}

/** Whether a code exists in its namespace (custom emoji: the emulator has none). */
function codeExists(code: string, type: string): boolean {
  switch (namespace(type)) {
    case 'unicode_emoji':
      return NAME_BY_CODE.has(code);
    case 'zulip_extra_emoji':
      return EXTRA_EMOJI.has(code);
    default:
      return false;
  }
}

/** Zulip's check_emoji_request, for an emoji nobody has reacted with yet. */
export function checkNewEmoji(name: string, code: string, type: string): void {
  if (namespace(type) === 'realm_emoji') throw badRequest('Invalid custom emoji.');
  if (!codeExists(code, type)) throw badRequest('Invalid emoji code');
  const nameMatches = namespace(type) === 'unicode_emoji' ? UNICODE_EMOJI[name] === code : name === code;
  if (!nameMatches) throw badRequest('Invalid emoji name.');
}

/** The `reaction` event every listener of the message (and the reacting user) receives. */
function notifyReaction(ctx: RouteContext, op: 'add' | 'remove', message: Message, reaction: Reaction): void {
  const user = ctx.store.users.get(reaction.user_id)!;
  ctx.events.notify(reactionListeners(ctx.store, message, user), {
    type: 'reaction',
    op,
    message_id: message.id,
    emoji_name: reaction.emoji_name,
    emoji_code: reaction.emoji_code,
    reaction_type: reaction.reaction_type,
    user_id: user.user_id,
    user: { user_id: user.user_id, email: user.email, full_name: user.full_name },
  });
}

function addReaction(ctx: RouteContext): Record<string, never> {
  const { params: p, store, user } = ctx;
  const messageId = ctx.pathInt('message_id');
  let name = p.str('emoji_name');
  let code = p.optStr('emoji_code');
  let type = p.optStr('reaction_type');
  if (type !== undefined) checkReactionType(type);
  if (code === undefined || type === undefined) ({ code, type } = emojiByName(name));
  const message = accessMessage(store, user, messageId);
  if (message.reactions.some((r) => r.user_id === user.user_id && sameEmoji(r, code!, type!))) {
    throw new ApiError('REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  }
  const existing = message.reactions.find((r) => sameEmoji(r, code!, type!));
  if (existing) name = existing.emoji_name;
  else checkNewEmoji(name, code, type);
  const reaction: Reaction = { emoji_name: name, emoji_code: code, reaction_type: type as ReactionType, user_id: user.user_id };
  message.reactions.push(reaction);
  notifyReaction(ctx, 'add', message, reaction);
  return {};
}

function removeReaction(ctx: RouteContext): Record<string, never> {
  const { params: p, store, user } = ctx;
  const messageId = ctx.pathInt('message_id');
  const name = p.optStr('emoji_name');
  let code = p.optStr('emoji_code');
  const type = p.optStr('reaction_type') ?? 'unicode_emoji';
  checkReactionType(type);
  const message = accessMessage(store, user, messageId);
  if (code === undefined) {
    if (name === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    code = emojiByName(name).code;
  }
  const index = message.reactions.findIndex((r) => r.user_id === user.user_id && sameEmoji(r, code!, type));
  if (index < 0) {
    const known = message.reactions.some((r) => sameEmoji(r, code!, type)) || codeExists(code, type);
    if (!known) throw badRequest('Invalid emoji code');
    throw new ApiError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  }
  const [reaction] = message.reactions.splice(index, 1);
  notifyReaction(ctx, 'remove', message, reaction!);
  return {};
}

/** Users a reaction event reaches: those who received the message, and the reacting user. */
export function reactionListeners(store: Store, message: Message, reactor: User): Set<number> {
  const ids = messageListeners(store, message);
  ids.add(reactor.user_id);
  return ids;
}

export const routes: Route[] = [
  { operation: ops.addReaction, handler: addReaction },
  { operation: ops.removeReaction, handler: removeReaction },
];
