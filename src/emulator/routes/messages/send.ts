/**
 * `POST /messages` (https://zulip.com/api/send-message) and the notification bot's messages.
 * Over-long content and topics are truncated as Zulip does; the sender's own messages start read
 * unless `read_by_sender` is false.
 */
import type { RouteContext } from '../../context.js';
import { badRequest, streamDoesNotExistById, streamDoesNotExistByName } from '../../errors.js';
import { addUser, insertMessage } from '../../factory.js';
import { renderMarkdown } from '../../markdown.js';
import { Role, type Channel, type Message, type Store, type User } from '../../store.js';
import { notifyNewMessage } from './access.js';
import {
  NOTIFICATION_BOT_EMAIL,
  WELCOME_BOT_EMAIL,
  normalizeContent,
  normalizeTopic,
  canSendToChannel,
  checkWildcardMentions,
  referencedAttachments,
  clientName,
} from './rules.js';

// ---- POST /messages ------------------------------------------------------------------------------

/** Zulip's extract_stream_indicator: a channel id, or a name (possibly JSON-encoded). */
export function channelIndicator(to: string): number | string {
  let data: unknown;
  try {
    data = JSON.parse(to);
  } catch {
    return to;
  }
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest('Expected exactly one channel');
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (Number.isSafeInteger(data)) return data as number;
  throw badRequest('Invalid data type for channel');
}

/** Zulip's extract_private_recipients + user lookup: the recipients of a direct message. */
export function directRecipients(store: Store, to: string | undefined): User[] {
  if (to === undefined) throw badRequest('Message must have recipients');
  let data: unknown;
  try {
    data = JSON.parse(to);
  } catch {
    data = to;
  }
  if (typeof data === 'string') data = data.split(',');
  if (Number.isSafeInteger(data)) data = [data];
  if (!Array.isArray(data)) throw badRequest('Invalid data type for recipients');
  const list = data.filter((x) => !(typeof x === 'string' && x.trim() === ''));
  if (list.length === 0) throw badRequest('Message must have recipients');
  const byEmail = typeof list[0] === 'string';
  if (!byEmail && !Number.isSafeInteger(list[0])) throw badRequest('Invalid data type for recipients');
  if (list.some((x) => (byEmail ? typeof x !== 'string' : !Number.isSafeInteger(x)))) {
    throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
  }
  const users: User[] = [];
  for (const x of list) {
    const u = byEmail ? store.userByEmail((x as string).trim()) : store.users.get(x as number);
    if (!u) throw badRequest(byEmail ? `Invalid email '${(x as string).trim()}'` : `Invalid user ID ${x as number}`);
    if (!u.is_active) throw badRequest(`'${u.email}' is no longer using Zulip.`);
    if (!users.includes(u)) users.push(u);
  }
  return users;
}

export function sendMessage(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user, settings } = ctx;
  const type = p.str('type');
  const to = p.optStr('to');
  const rawContent = p.str('content');
  const rawTopic = p.optStr('topic') ?? p.optStr('subject');
  const queueId = p.optStr('queue_id');
  const localId = p.optStr('local_id');
  const readBySender = p.optBool('read_by_sender');
  let kind: 'stream' | 'private';
  if (type === 'stream' || type === 'channel') kind = 'stream';
  else if (type === 'direct' || type === 'private') kind = 'private';
  else throw badRequest('Invalid message type');

  let channel: Channel | undefined;
  let topic = '';
  let recipients: User[] = [];
  if (kind === 'stream') {
    if (to === undefined || to === '') throw badRequest('Missing channel');
    const indicator = channelIndicator(to);
    if (rawTopic === undefined && store.realm.settings.mandatory_topics) throw badRequest('Missing topic');
    topic = normalizeTopic(store, rawTopic ?? '', settings.maxTopicLength);
    channel = typeof indicator === 'number' ? store.channels.get(indicator) : store.channelByName(indicator);
    if (!channel) throw typeof indicator === 'number' ? streamDoesNotExistById(indicator) : streamDoesNotExistByName(indicator);
  } else {
    recipients = directRecipients(store, to);
  }
  const content = normalizeContent(rawContent, settings.maxMessageLength);
  if (channel) {
    if (topic === '' && store.realm.settings.mandatory_topics) throw badRequest('Topics are required in this organization');
    canSendToChannel(store, user, channel);
    checkWildcardMentions(store, user, renderMarkdown(store, content), channel.stream_id, topic);
  }

  const message = insertMessage(store, {
    sender_id: user.user_id,
    stream_id: channel?.stream_id,
    topic: channel ? topic : undefined,
    to_user_ids: channel ? undefined : recipients.map((u) => u.user_id),
    content,
    timestamp: ctx.nowSeconds(),
    client: clientName(ctx.request),
  });
  store.setFlag(user.user_id, message.id, 'read', readBySender !== false);
  for (const a of referencedAttachments(store, content, user.user_id)) a.message_ids.add(message.id);
  notifyNewMessage(ctx, message, queueId !== undefined && localId !== undefined ? { queueId, localId } : undefined);
  return { id: message.id };
}

/** A cross-realm system bot (Zulip's get_system_bot), created on first use. */
function systemBot(store: Store, nowMs: number, email: string, fullName: string): User {
  const existing = store.userByEmail(email);
  if (existing) return existing;
  return addUser(store, { full_name: fullName, delivery_email: email, is_bot: true, bot_type: 1, role: Role.MEMBER }, nowMs);
}

/** The cross-realm Notification Bot that announces moves and resolved topics (created on first use). */
export function notificationBot(store: Store, nowMs: number): User {
  return systemBot(store, nowMs, NOTIFICATION_BOT_EMAIL, 'Notification Bot');
}

/**
 * Zulip's internal_send_private_message from the Welcome Bot (created on first use) to `user`: a
 * direct message, unread for its receiver, announced with `message` events.
 */
export function sendWelcomeBotMessage(ctx: RouteContext, user: User, content: string): Message {
  const bot = systemBot(ctx.store, ctx.clock.now(), WELCOME_BOT_EMAIL, 'Welcome Bot');
  const message = insertMessage(ctx.store, {
    sender_id: bot.user_id,
    to_user_ids: [user.user_id],
    content,
    timestamp: ctx.nowSeconds(),
    client: 'Internal',
  });
  notifyNewMessage(ctx, message);
  return message;
}

/**
 * Zulip's internal_send_stream_message: a Notification Bot message, read by everyone except
 * `unreadFor`, announced with `message` events.
 */
export function sendNotification(ctx: RouteContext, channel: Channel, topic: string, content: string, unreadFor: Set<number>): Message {
  const bot = notificationBot(ctx.store, ctx.clock.now());
  const message = insertMessage(ctx.store, {
    sender_id: bot.user_id,
    stream_id: channel.stream_id,
    topic,
    content,
    timestamp: ctx.nowSeconds(),
    client: 'Internal',
  });
  for (const id of ctx.store.messageAudience(message)) ctx.store.setFlag(id, message.id, 'read', !unreadFor.has(id));
  notifyNewMessage(ctx, message);
  return message;
}
