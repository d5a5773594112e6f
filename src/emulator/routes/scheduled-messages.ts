/**
 * Scheduled messages ("send later"): `GET /scheduled_messages`, `POST /scheduled_messages`,
 * `PATCH /scheduled_messages/{id}` and `DELETE /scheduled_messages/{id}`
 * (https://zulip.com/api/get-scheduled-messages and neighbours), with the events Zulip sends
 * (`scheduled_messages` add/update/remove, https://zulip.com/api/get-events#scheduled_messages-add).
 *
 * Validation follows Zulip's order: request parameters first (type, JSON `to`, delivery time in
 * the future), then the addressee (topic present and not empty), then the content, then the
 * recipients (channel exists: else STREAM_DOES_NOT_EXIST with stream_id; may post there; users
 * exist and are active). Nothing is stored until everything has passed.
 *
 * Also exported: the message rules drafts share (content normalization, topic truncation,
 * direct-message recipient checks), as Zulip's `normalize_body` and `truncate_topic`.
 * Deliberate deviation from Zulip: a channel topic equal to `(no topic)` or to
 * the organization's empty-topic display name counts as empty, and topics are always required.
 * Delivery is not emulated: a message stays pending until edited or deleted.
 */
import type { ScheduledMessage as WireScheduledMessage } from '../../zulip/model/scheduled-messages.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest, streamDoesNotExistById } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import type { Channel, ScheduledMessage, Store, User } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

// ---- message rules shared with drafts --------------------------------------------------------

/** Zulip's truncate_content: cut to `max` characters, ending with `marker`. */
function truncate(text: string, max: number, marker: string): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - marker.length).join('') + marker : text;
}

/**
 * Zulip's normalize_body: drops trailing whitespace and leading newlines, refuses empty content
 * and null bytes, and truncates beyond max_message_length with "\n[message truncated]".
 */
export function normalizeContent(content: string, maxLength: number): string {
  const body = content.trimEnd().replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncate(body, maxLength, '\n[message truncated]');
}

/** Zulip's truncate_topic: beyond max_topic_length the topic ends with "...". */
export function truncateTopic(topic: string, maxLength: number): string {
  return truncate(topic, maxLength, '...');
}

/**
 * The `to` list Zulip stores for a direct message or draft: unique, ascending, without the sender
 * (unless the sender is the only recipient).
 */
export function directRecipientIds(userIds: number[], senderId: number): number[] {
  const unique = [...new Set(userIds)].sort((a, b) => a - b);
  const others = unique.filter((id) => id !== senderId);
  return others.length > 0 ? others : unique;
}

/** Every recipient must exist and be active (Zulip's get_user_profiles_by_ids + validation). */
export function checkDirectRecipients(store: Store, userIds: number[]): void {
  for (const id of userIds) {
    const user = store.userById(id);
    if (!user) throw badRequest(`Invalid user ID ${id}`);
    if (!user.is_active) throw badRequest(`'${user.email}' is no longer using Zulip.`);
  }
}

// ---- scheduled messages ----------------------------------------------------------------------

type StoredType = ScheduledMessage['type'];

/** The wire form, as GET, register and events return it: no `topic` for direct messages. */
export function serializeScheduledMessage(m: ScheduledMessage): WireScheduledMessage {
  const common = {
    scheduled_message_id: m.scheduled_message_id,
    content: m.content,
    rendered_content: m.rendered_content,
    scheduled_delivery_timestamp: m.scheduled_delivery_timestamp,
    failed: m.failed,
  };
  if (m.type === 'private') {
    return { ...common, type: 'private', to: Array.isArray(m.to) ? [...m.to] : [m.to] };
  }
  return { ...common, type: 'stream', to: Array.isArray(m.to) ? m.to[0]! : m.to, topic: m.topic };
}

/** The user's undelivered scheduled messages, soonest first (failed ones included). */
export function scheduledMessagesOf(store: Store, userId: number): WireScheduledMessage[] {
  return [...store.scheduledMessages.values()]
    .filter((m) => m.sender_id === userId)
    .sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id)
    .map(serializeScheduledMessage);
}

const REQUEST_TYPES: Record<string, StoredType> = { direct: 'private', private: 'private', channel: 'stream', stream: 'stream' };

function readType(ctx: RouteContext, required: boolean): StoredType | undefined {
  const raw = required ? ctx.params.str('type') : ctx.params.optStr('type');
  if (raw === undefined) return undefined;
  if (!Object.hasOwn(REQUEST_TYPES, raw)) throw badRequest('Invalid type');
  return REQUEST_TYPES[raw];
}

function readDeliveryTimestamp(ctx: RouteContext, required: boolean): number | undefined {
  const name = 'scheduled_delivery_timestamp';
  const at = required ? ctx.params.int(name) : ctx.params.optInt(name);
  if (at !== undefined && at <= ctx.nowSeconds()) throw badRequest('Scheduled delivery time must be in the future.');
  return at;
}

/** A channel message's `to`: one channel ID, as an integer (Zulip refuses a list, even of one). */
function channelTarget(to: unknown): number {
  if (!Number.isSafeInteger(to)) throw badRequest('Invalid data type for channel ID');
  return to as number;
}

/** A direct message's `to`: a list of user IDs (Zulip refuses a bare integer). */
function directTarget(to: unknown): number[] {
  if (!Array.isArray(to)) throw badRequest('Invalid data type for recipients');
  if (to.some((x) => !Number.isSafeInteger(x))) throw badRequest('Recipient list may only contain user IDs');
  if (to.length === 0) throw badRequest('Message must have recipients');
  return to as number[];
}

/** A required channel topic: stripped, not empty (nor an alias of the empty topic), printable, truncated. */
function checkChannelTopic(ctx: RouteContext, topic: string): string {
  const stripped = topic.trim();
  const emptyAliases = ['', '(no topic)', ctx.store.realm.empty_topic_display_name];
  if (emptyAliases.includes(stripped)) throw badRequest("Topic can't be empty!");
  const bad = [...stripped].findIndex((c) => /[\u0000-\u001f\u007f-\u009f]/.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in topic, at position ${bad + 1}!`);
  return truncateTopic(stripped, ctx.settings.maxTopicLength);
}

/** Zulip's access_stream_for_send_message. */
function checkCanPost(store: Store, user: User, channel: Channel): void {
  const notAuthorized = () => badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (channel.is_archived) throw notAuthorized();
  const allowed = (u: User) => store.userHasGroupSetting(u.user_id, channel.can_send_message_group);
  const owner = user.is_bot && user.bot_owner_id !== null ? store.userById(user.bot_owner_id) : undefined;
  if (!allowed(user) && !(owner && allowed(owner))) throw badRequest('You do not have permission to post in this channel.');
  if (store.isSubscribed(user.user_id, channel.stream_id)) return;
  if (owner && store.isSubscribed(owner.user_id, channel.stream_id)) return;
  if (!channel.invite_only && !store.isGuest(user)) return;
  throw notAuthorized();
}

/** A message as requested, before any check. */
interface Requested {
  type: StoredType;
  /** Channel ID or recipient user IDs, as requested (not yet validated). */
  to: unknown;
  topic: string | undefined;
  content: string;
}

/** Zulip's Addressee.legacy_build + check_message: everything about what and to whom. */
function checkMessage(ctx: RouteContext, m: Requested): Pick<ScheduledMessage, 'type' | 'to' | 'topic' | 'content' | 'rendered_content'> {
  const { store, user } = ctx;
  let to: number | number[];
  let topic = '';
  if (m.type === 'stream') {
    to = channelTarget(m.to);
    if (m.topic === undefined) throw badRequest('Missing topic');
    topic = checkChannelTopic(ctx, m.topic);
  } else {
    to = directTarget(m.to);
  }
  const content = normalizeContent(m.content, ctx.settings.maxMessageLength);
  if (typeof to === 'number') {
    const channel = store.channels.get(to);
    if (!channel) throw streamDoesNotExistById(to);
    checkCanPost(store, user, channel);
  } else {
    checkDirectRecipients(store, to);
    to = directRecipientIds(to, user.user_id);
  }
  return { type: m.type, to, topic, content, rendered_content: renderMarkdown(store, content).html };
}

function notFound(): ApiError {
  return new ApiError('BAD_REQUEST', 'Scheduled message does not exist', 404);
}

/** Zulip's access_scheduled_message: only the sender's own messages exist for them. */
function accessScheduledMessage(ctx: RouteContext): ScheduledMessage {
  const id = ctx.pathInt('scheduled_message_id');
  const message = ctx.store.scheduledMessages.get(id);
  if (!message || message.sender_id !== ctx.user.user_id) throw notFound();
  return message;
}

function notify(ctx: RouteContext, event: Record<string, unknown>): void {
  ctx.events.notify([ctx.user.user_id], { type: 'scheduled_messages', ...event });
}

/** https://zulip.com/api/create-scheduled-message */
function create(ctx: RouteContext): Record<string, unknown> {
  const type = readType(ctx, true)!;
  const to = ctx.params.json('to');
  const content = ctx.params.str('content');
  const topic = ctx.params.optStr('topic');
  const at = readDeliveryTimestamp(ctx, true)!;
  ctx.params.optBool('read_by_sender'); // accepted; delivery is not emulated
  const checked = checkMessage(ctx, { type, to, topic, content });
  const id = ctx.store.nextId('scheduled');
  const message: ScheduledMessage = {
    scheduled_message_id: id,
    sender_id: ctx.user.user_id,
    ...checked,
    scheduled_delivery_timestamp: at,
    failed: false,
  };
  ctx.store.scheduledMessages.set(id, message);
  notify(ctx, { op: 'add', scheduled_messages: [serializeScheduledMessage(message)] });
  return { scheduled_message_id: id };
}

/** https://zulip.com/api/update-scheduled-message */
function update(ctx: RouteContext): Record<string, unknown> {
  const content = ctx.params.optStr('content');
  const type = readType(ctx, false);
  const to = ctx.params.optJson('to');
  const topic = ctx.params.optStr('topic');
  const requestedAt = ctx.params.optInt('scheduled_delivery_timestamp');
  if ([content, type, to, topic, requestedAt].every((v) => v === undefined)) throw badRequest('Nothing to change');
  if (type !== undefined && to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
  if (type === 'stream' && topic === undefined) throw badRequest('Topic required when updating scheduled message type to channel.');
  const at = readDeliveryTimestamp(ctx, false);
  const message = accessScheduledMessage(ctx);
  // A message the server failed to send needs a new time (and is pending again once edited).
  if (message.failed && at === undefined) throw badRequest('Scheduled delivery time must be in the future.');

  let changes: Partial<ScheduledMessage> = {};
  if (type !== undefined || to !== undefined || content !== undefined) {
    const newType = type ?? message.type;
    changes = checkMessage(ctx, {
      type: newType,
      to: to ?? message.to,
      topic: topic ?? (message.type === 'stream' ? message.topic : undefined),
      content: content ?? message.content,
    });
    // Unchanged content keeps its rendering (Zulip re-renders only new content).
    if (content === undefined) {
      delete changes.content;
      delete changes.rendered_content;
    }
  } else if (topic !== undefined && message.type === 'stream') {
    changes.topic = checkChannelTopic(ctx, topic);
  }
  // Topics sent for direct messages are ignored.
  Object.assign(message, changes);
  if (at !== undefined) message.scheduled_delivery_timestamp = at;
  message.failed = false;
  notify(ctx, { op: 'update', scheduled_message: serializeScheduledMessage(message) });
  return {};
}

export const routes: Route[] = [
  {
    operation: ops.getScheduledMessages,
    handler: (ctx) => ({ scheduled_messages: scheduledMessagesOf(ctx.store, ctx.user.user_id) }),
  },
  { operation: ops.createScheduledMessage, handler: create },
  { operation: ops.updateScheduledMessage, handler: update },
  {
    operation: ops.deleteScheduledMessage,
    handler: (ctx) => {
      const message = accessScheduledMessage(ctx);
      ctx.store.scheduledMessages.delete(message.scheduled_message_id);
      notify(ctx, { op: 'remove', scheduled_message_id: message.scheduled_message_id });
      return {};
    },
  },
];

/** The `scheduled_messages` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('scheduled_messages') ? { scheduled_messages: scheduledMessagesOf(ctx.store, ctx.user.user_id) } : {};
}
