/**
 * Messages: `GET /messages` (https://zulip.com/api/get-messages), `GET /messages/{id}`
 * (https://zulip.com/api/get-message), `POST /messages` (https://zulip.com/api/send-message),
 * `PATCH /messages/{id}` (https://zulip.com/api/update-message), `POST /messages/flags`
 * (https://zulip.com/api/update-message-flags) and `POST /messages/flags/narrow`
 * (https://zulip.com/api/update-message-flags-for-narrow), with the events a Zulip server sends
 * for them (`message`, `update_message`, `delete_message`, `update_message_flags`;
 * events-protocol.md §4.1) and the `unread_msgs` / `starred_messages` register state.
 *
 * Every handler reads and validates all of its input before it changes the store, so a rejected
 * request never leaves a half-applied change. Where the spec leaves a detail open, Zulip 10's
 * behaviour (zerver/views/message_*.py, zerver/actions/message_*.py) is the model:
 * - sending truncates over-long content ("\n[message truncated]") and topics ("..."), as Zulip does;
 * - the sender's own messages start read unless `read_by_sender` is false;
 * - moving messages past a time limit fails with MOVE_MESSAGES_TIME_LIMIT_EXCEEDED (spec, rule 4);
 *   `first_message_id_allowed_to_move` is null when no requested message may move. Resolving or
 *   unresolving a topic has no time limit;
 * - `found_oldest` / `found_newest` are exact (the search looks one message beyond the window).
 */
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest, invalidMessage, missingArgument, streamDoesNotExistById, streamDoesNotExistByName } from '../errors.js';
import { addUser, insertMessage, applyMentionFlags } from '../factory.js';
import { checkIntArray } from '../http.js';
import { channelNarrowPath, encodeHashComponent, renderMarkdown, type Rendered } from '../markdown.js';
import {
  fetchWindow,
  firstUnreadId,
  highlightMatches,
  LARGER_THAN_MAX_MESSAGE_ID,
  parseNarrow,
  planSearch,
  RESOLVED_TOPIC_PREFIX,
  searchKeywords,
  validateNarrow,
  type NarrowTerm,
} from '../narrow.js';
import type { Queue } from '../queues.js';
import { avatarUrl } from './users.js';
import { FLAG_NAMES, Role, type Attachment, type Channel, type EditHistoryEntry, type Message, type Store, type User } from '../store.js';

/** Zulip's MAX_MESSAGES_PER_FETCH and MAX_MESSAGES_PER_UPDATE. */
export const MAX_MESSAGES_PER_FETCH = 5000;
const MAX_MESSAGES_PER_UPDATE = 5000;
/** Seconds of grace Zulip allows past the edit and move time limits. */
const EDIT_LIMIT_BUFFER_SECONDS = 20;
const EDITABLE_FLAGS = new Set(['read', 'starred', 'collapsed']);
const NON_EDITABLE_FLAGS = new Set<string>(FLAG_NAMES.filter((flag) => !EDITABLE_FLAGS.has(flag)));
const PROPAGATE_MODES = new Set(['change_one', 'change_later', 'change_all']);
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';

// ---- serializers ---------------------------------------------------------------------------------

export interface SerializeOptions {
  /** HTML content (`text/html`) or the Markdown source (`text/x-markdown`). */
  applyMarkdown: boolean;
  /** Leave `avatar_url` null for gravatar users whose real email the viewer can see. */
  clientGravatar: boolean;
  /** Otherwise the empty topic is shown as the organization's empty-topic display name. */
  allowEmptyTopicName: boolean;
  /** Server origin, for uploaded-avatar URLs. */
  baseUrl: string;
}

/** A message as `GET /messages` and `message` events carry it (flags are not part of it). */
export interface WireMessage {
  id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  avatar_url: string | null;
  client: string;
  content: string;
  content_type: 'text/html' | 'text/x-markdown';
  display_recipient: string | { id: number; email: string; full_name: string; is_mirror_dummy: boolean }[];
  recipient_id: number;
  stream_id?: number;
  subject: string;
  topic_links: { text: string; url: string }[];
  timestamp: number;
  type: 'stream' | 'private';
  is_me_message: boolean;
  reactions: { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }[];
  submessages: unknown[];
  edit_history?: EditHistoryEntry[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

/** A topic as returned: '' becomes the empty-topic display name unless the client accepts ''. */
export function displayTopic(store: Store, topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? store.realm.empty_topic_display_name : topic;
}

/** The message object of `GET /messages` (minus `flags`), `message` events and the loaders. */
export function serializeMessage(store: Store, viewer: User, message: Message, options: SerializeOptions): WireMessage {
  const sender = store.users.get(message.sender_id)!;
  const wire: WireMessage = {
    id: message.id,
    sender_id: sender.user_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: store.realm.string_id,
    avatar_url: avatarUrl(store, sender, { baseUrl: options.baseUrl, clientGravatar: options.clientGravatar, viewer }),
    client: message.client,
    content: options.applyMarkdown ? message.rendered_content : message.content,
    content_type: options.applyMarkdown ? 'text/html' : 'text/x-markdown',
    display_recipient: displayRecipient(store, message),
    recipient_id: message.recipient_id,
    subject: message.type === 'stream' ? displayTopic(store, message.topic, options.allowEmptyTopicName) : '',
    topic_links: [],
    timestamp: message.timestamp,
    type: message.type,
    is_me_message: message.is_me_message,
    reactions: message.reactions.map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
    submessages: [],
  };
  if (message.type === 'stream') wire.stream_id = message.stream_id!;
  if (message.edit_history.length > 0 && store.realm.settings.allow_edit_history) {
    wire.edit_history = message.edit_history.map((e) => ({ ...e }));
  }
  if (message.last_edit_timestamp !== undefined) wire.last_edit_timestamp = message.last_edit_timestamp;
  if (message.last_moved_timestamp !== undefined) wire.last_moved_timestamp = message.last_moved_timestamp;
  return wire;
}

function displayRecipient(store: Store, message: Message): WireMessage['display_recipient'] {
  if (message.type === 'stream') return store.channels.get(message.stream_id!)?.name ?? '';
  return message.dm_user_ids!.map((id) => {
    const u = store.users.get(id)!;
    return { id, email: u.email, full_name: u.full_name, is_mirror_dummy: false };
  });
}

/** The flags a user has on a message; messages they did not receive carry `historical`. */
export function messageFlagsFor(store: Store, userId: number, message: Message): string[] {
  return store.messageFlags(userId, message);
}

function queueSerializeOptions(queue: Queue, baseUrl: string): SerializeOptions {
  return {
    applyMarkdown: queue.options.applyMarkdown,
    clientGravatar: queue.options.clientGravatar,
    allowEmptyTopicName: queue.options.capabilities.empty_topic_name === true,
    baseUrl,
  };
}

// ---- access and audiences --------------------------------------------------------------------------

/** Zulip's access_message: the message if the user may read it, else "Invalid message(s)". */
export function accessMessage(store: Store, user: User, messageId: number): Message {
  const message = store.messages.get(messageId);
  if (!message || !store.canSeeMessage(user, message)) throw invalidMessage();
  return message;
}

/**
 * Who is told about changes to a message (reactions, edits): everyone who received it, i.e. the
 * participants, or the active subscribers who can read it.
 */
export function messageListeners(store: Store, message: Message): Set<number> {
  const ids = new Set<number>();
  for (const id of store.messageAudience(message)) {
    const u = store.users.get(id);
    if (u?.is_active && store.canSeeMessage(u, message)) ids.add(id);
  }
  return ids;
}

function activeSubscriberCount(store: Store, streamId: number): number {
  let n = 0;
  for (const id of store.subscriberIds(streamId)) if (store.users.get(id)?.is_active) n++;
  return n;
}

// ---- shared message rules ------------------------------------------------------------------------

function truncate(text: string, max: number, marker: string): string {
  return text.length > max ? text.slice(0, max - marker.length) + marker : text;
}

/** Zulip's normalize_body: trims, refuses empty content and NUL bytes, truncates. */
function normalizeContent(content: string, maxLength: number): string {
  const body = content.trimEnd().replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncate(body, maxLength, '\n[message truncated]');
}

/** A topic as stored: stripped, `(no topic)` and the display name read as '', truncated. */
function normalizeTopic(store: Store, topic: string, maxLength: number): string {
  if (topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
  const stripped = topic.trim();
  if (stripped === '(no topic)' || stripped === store.realm.empty_topic_display_name) return '';
  return truncate(stripped, maxLength, '...');
}

function canSendToChannel(store: Store, user: User, channel: Channel): void {
  if (!store.userHasGroupSetting(user.user_id, channel.can_send_message_group)) {
    throw badRequest('You do not have permission to post in this channel.');
  }
  const notAuthorized = () => badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (channel.is_archived) throw notAuthorized();
  if (store.isSubscribed(user.user_id, channel.stream_id)) return;
  if (!channel.invite_only && !store.isGuest(user)) return;
  throw notAuthorized();
}

/** Users who sent or reacted to messages of a topic (Zulip's participants_for_topic). */
function topicParticipants(store: Store, streamId: number, topic: string): Set<number> {
  const lower = topic.toLowerCase();
  const ids = new Set<number>();
  for (const id of store.channelMessageIds(streamId)) {
    const m = store.messages.get(id);
    if (!m || m.stream_id !== streamId || m.topic.toLowerCase() !== lower) continue;
    ids.add(m.sender_id);
    for (const r of m.reactions) ids.add(r.user_id);
  }
  return ids;
}

/** Wildcard mentions in big channels / busy topics need can_mention_many_users_group. */
function checkWildcardMentions(store: Store, sender: User, rendered: Rendered, streamId: number, topic: string): void {
  if (!rendered.channelWildcard && !rendered.topicWildcard) return;
  if (store.userHasGroupSetting(sender.user_id, store.realm.settings.can_mention_many_users_group)) return;
  const threshold = store.realm.settings.wildcard_mention_large_stream_threshold;
  if (rendered.channelWildcard && activeSubscriberCount(store, streamId) > threshold) {
    throw new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.');
  }
  if (rendered.topicWildcard && topicParticipants(store, streamId, topic).size > threshold) {
    throw new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.');
  }
}

/** Attachments of the organization referenced by `/user_uploads/<path_id>` in the content. */
function referencedAttachments(store: Store, content: string, ownerId: number): Attachment[] {
  if (!content.includes('/user_uploads/')) return [];
  const found: Attachment[] = [];
  for (const a of store.attachments.values()) {
    if (a.owner_id === ownerId && content.includes(`/user_uploads/${a.path_id}`)) found.push(a);
  }
  return found;
}

function serializeAttachment(store: Store, a: Attachment) {
  return {
    id: a.id,
    name: a.name,
    path_id: a.path_id,
    size: a.size,
    create_time: a.create_time,
    messages: [...a.message_ids]
      .map((id) => store.messages.get(id))
      .filter((m): m is Message => m !== undefined)
      .map((m) => ({ id: m.id, date_sent: m.timestamp * 1000 })),
  };
}

/** The client name Zulip records: the User-Agent's product token. */
function clientName(request: Request): string {
  const ua = request.headers.get('user-agent')?.trim();
  const name = ua ? ua.split(/[/\s]/)[0] : '';
  return name || 'API';
}

// ---- events ------------------------------------------------------------------------------------

/** `message` events: each receiver gets its flags and its queue's rendering. */
export function notifyNewMessage(
  ctx: Pick<RouteContext, 'store' | 'events' | 'baseUrl'>,
  message: Message,
  localEcho?: { queueId: string; localId: string },
): void {
  const { store } = ctx;
  const receivers = new Set<number>();
  for (const id of store.messageAudience(message)) if (store.users.get(id)?.is_active) receivers.add(id);
  receivers.add(message.sender_id);
  const channel = message.type === 'stream' ? store.channels.get(message.stream_id!) : undefined;
  ctx.events.notify(
    receivers,
    (queue) => {
      const viewer = store.users.get(queue.userId);
      if (!viewer) return null;
      const flags = receivers.has(queue.userId) ? store.messageFlags(queue.userId, message).filter((f) => f !== 'historical') : [];
      const event: Record<string, unknown> & { type: string } = {
        type: 'message',
        message: serializeMessage(store, viewer, message, queueSerializeOptions(queue, ctx.baseUrl)),
        flags,
      };
      if (localEcho && queue.id === localEcho.queueId && queue.userId === message.sender_id) event.local_message_id = localEcho.localId;
      return event;
    },
    { publicChannelListeners: channel !== undefined && !channel.invite_only },
  );
}

// ---- GET /messages -------------------------------------------------------------------------------

function parseAnchor(raw: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw missingArgument('anchor');
  const value = raw.trim();
  if (value === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (value === 'oldest') return 0;
  if (value === 'first_unread') return null;
  if (!/^-?\d+$/.test(value)) throw badRequest('Invalid anchor');
  const n = Number(value);
  if (n < 0) return 0;
  return Math.min(n, LARGER_THAN_MAX_MESSAGE_ID);
}

function nonNegative(name: string, value: number | undefined): number {
  if (value === undefined) throw missingArgument(name);
  if (value < 0) throw badRequest(`${name} is too small`);
  return value;
}

function getMessages(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user } = ctx;
  const messageIdsRaw = p.optJson('message_ids');
  const anchorRaw = p.optStr('anchor');
  const includeAnchor = p.optBool('include_anchor');
  const numBeforeRaw = p.optInt('num_before');
  const numAfterRaw = p.optInt('num_after');
  const useFirstUnread = p.optBool('use_first_unread_anchor');
  const narrowRaw = p.optJson('narrow');
  const options: SerializeOptions = {
    applyMarkdown: p.bool('apply_markdown', true),
    clientGravatar: p.bool('client_gravatar', true),
    allowEmptyTopicName: p.bool('allow_empty_topic_name', false),
    baseUrl: ctx.baseUrl,
  };
  const narrow = parseNarrow(narrowRaw);
  validateNarrow(store, user, narrow);

  if (messageIdsRaw !== undefined) {
    const conflicts = (
      [
        ['anchor', anchorRaw],
        ['include_anchor', includeAnchor],
        ['use_first_unread_anchor', useFirstUnread],
        ['num_before', numBeforeRaw],
        ['num_after', numAfterRaw],
      ] as const
    )
      .filter(([, v]) => v !== undefined)
      .map(([name]) => name);
    if (conflicts.length > 0) throw incompatible(['message_ids', ...conflicts]);
    const ids = [...new Set(checkIntArray('message_ids', messageIdsRaw))].sort((a, b) => a - b);
    const plan = planSearch(store, user, narrow);
    const match = narrow.length > 0 ? plan.accept : () => true;
    const keywords = searchKeywords(plan.narrow);
    const messages = ids
      .map((id) => store.messages.get(id))
      .filter((m): m is Message => m !== undefined && store.canSeeMessage(user, m) && match(m));
    return {
      found_anchor: false,
      found_newest: false,
      found_oldest: false,
      history_limited: false,
      messages: messages.map((m) => messageForList(store, user, m, options, keywords)),
    };
  }

  const numBefore = nonNegative('num_before', numBeforeRaw);
  const numAfter = nonNegative('num_after', numAfterRaw);
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) {
    throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  if (useFirstUnread === true && anchorRaw !== undefined) throw incompatible(['anchor', 'use_first_unread_anchor']);
  const requested = parseAnchor(anchorRaw, useFirstUnread === true);
  const plan = planSearch(store, user, narrow);
  const anchor = requested ?? firstUnreadId(store, user, plan) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const window = fetchWindow(store, plan, { anchor, includeAnchor: includeAnchor ?? true, numBefore, numAfter });
  const keywords = searchKeywords(plan.narrow);
  return {
    anchor,
    found_anchor: window.foundAnchor,
    found_newest: window.foundNewest,
    found_oldest: window.foundOldest,
    history_limited: false,
    messages: window.messages.map((m) => messageForList(store, user, m, options, keywords)),
  };
}

function incompatible(parameters: string[]): ApiError {
  return badRequest(`Unsupported parameter combination: ${parameters.join(', ')}`, { parameters: parameters.join(', ') });
}

function messageForList(store: Store, user: User, m: Message, options: SerializeOptions, keywords: string[]): Record<string, unknown> {
  const wire = serializeMessage(store, user, m, options) as unknown as Record<string, unknown>;
  wire.flags = store.messageFlags(user.user_id, m);
  if (keywords.length > 0) {
    Object.assign(wire, highlightMatches(m.rendered_content, displayTopic(store, m.topic, options.allowEmptyTopicName), keywords));
  }
  return wire;
}

function getMessage(ctx: RouteContext): Record<string, unknown> {
  const id = ctx.pathInt('message_id');
  // No client_gravatar here: Zulip serializes this one as if it were true.
  const options: SerializeOptions = {
    applyMarkdown: ctx.params.bool('apply_markdown', true),
    clientGravatar: true,
    allowEmptyTopicName: ctx.params.bool('allow_empty_topic_name', false),
    baseUrl: ctx.baseUrl,
  };
  const message = accessMessage(ctx.store, ctx.user, id);
  return {
    raw_content: message.content,
    message: { ...serializeMessage(ctx.store, ctx.user, message, options), flags: ctx.store.messageFlags(ctx.user.user_id, message) },
  };
}

// ---- POST /messages ------------------------------------------------------------------------------

/** Zulip's extract_stream_indicator: a channel id, or a name (possibly JSON-encoded). */
function channelIndicator(to: string): number | string {
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
function directRecipients(store: Store, to: string | undefined): User[] {
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

function sendMessage(ctx: RouteContext): Record<string, unknown> {
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

/** The cross-realm Notification Bot that announces moves and resolved topics (created on first use). */
export function notificationBot(store: Store, nowMs: number): User {
  const existing = store.userByEmail(NOTIFICATION_BOT_EMAIL);
  if (existing) return existing;
  return addUser(
    store,
    { full_name: 'Notification Bot', delivery_email: NOTIFICATION_BOT_EMAIL, is_bot: true, bot_type: 1, role: Role.MEMBER },
    nowMs,
  );
}

/**
 * Zulip's internal_send_stream_message: a Notification Bot message, read by everyone except
 * `unreadFor`, announced with `message` events.
 */
function sendNotification(ctx: RouteContext, channel: Channel, topic: string, content: string, unreadFor: Set<number>): Message {
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

// ---- PATCH /messages/{id} ------------------------------------------------------------------------

interface MovePlan {
  ids: number[];
  fromStream: Channel;
  toStream: Channel;
  oldTopic: string;
  newTopic: string;
  topicChanged: boolean;
  streamChanged: boolean;
  resolveOnly: 'resolve' | 'unresolve' | null;
}

/**
 * Move time limits (not for moderators and administrators, not for resolving): the stricter of the
 * applicable limits. MOVE_MESSAGES_TIME_LIMIT_EXCEEDED says which part of the topic may still move.
 */
function timeLimitCheck(store: Store, user: User, plan: MovePlan, nowSeconds: number): void {
  if (store.isModeratorOrAbove(user) || plan.resolveOnly) return;
  const r = store.realm.settings;
  const limits: number[] = [];
  if (plan.topicChanged && r.move_messages_within_stream_limit_seconds !== null) limits.push(r.move_messages_within_stream_limit_seconds);
  if (plan.streamChanged && r.move_messages_between_streams_limit_seconds !== null) limits.push(r.move_messages_between_streams_limit_seconds);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits) + EDIT_LIMIT_BUFFER_SECONDS;
  const inTime = (id: number) => nowSeconds - store.messages.get(id)!.timestamp <= deadline;
  const allowed = plan.ids.filter(inTime);
  if (allowed.length === plan.ids.length) return;
  const inTopic = topicMessageIds(store, user, plan.fromStream.stream_id, plan.oldTopic);
  const allowedInTopic = inTopic.filter(inTime);
  const msg =
    allowedInTopic.length > 0
      ? `You only have permission to move the ${allowedInTopic.length}/${inTopic.length} most recent messages in this topic.`
      : 'The time limit for moving this message has passed.';
  throw new ApiError('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', msg, 400, {
    first_message_id_allowed_to_move: allowed[0] ?? null,
    total_messages_allowed_to_move: allowedInTopic.length,
    total_messages_in_topic: inTopic.length,
  });
}

/** Ids of a topic's messages the user can read, ascending (case-insensitive topic match). */
function topicMessageIds(store: Store, user: User, streamId: number, topic: string): number[] {
  const lower = topic.toLowerCase();
  const ids: number[] = [];
  for (const id of store.channelMessageIds(streamId)) {
    const m = store.messages.get(id);
    if (m && m.stream_id === streamId && m.topic.toLowerCase() === lower && store.canSeeMessage(user, m)) ids.push(id);
  }
  return ids;
}

function resolveKind(oldTopic: string, newTopic: string): 'resolve' | 'unresolve' | null {
  if (newTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && newTopic.slice(RESOLVED_TOPIC_PREFIX.length) === oldTopic) {
    return 'resolve';
  }
  if (oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !newTopic.startsWith(RESOLVED_TOPIC_PREFIX) && stripResolved(oldTopic) === newTopic) {
    return 'unresolve';
  }
  return null;
}

function stripResolved(topic: string): string {
  let t = topic;
  while (t.startsWith(RESOLVED_TOPIC_PREFIX)) t = t.slice(RESOLVED_TOPIC_PREFIX.length);
  return t;
}

function updateMessage(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user, settings } = ctx;
  const messageId = ctx.pathInt('message_id');
  const rawTopic = p.optStr('topic') ?? p.optStr('subject');
  const propagateMode = p.optStr('propagate_mode') ?? 'change_one';
  const notifyOld = p.bool('send_notification_to_old_thread', false);
  const notifyNew = p.bool('send_notification_to_new_thread', true);
  const rawContent = p.optStr('content');
  const streamId = p.optInt('stream_id');
  if (!PROPAGATE_MODES.has(propagateMode)) throw badRequest('Invalid propagate_mode');
  const message = accessMessage(store, user, messageId);
  const now = ctx.nowSeconds();
  const realm = store.realm.settings;

  // Zulip's validate_message_edit_payload.
  if (rawTopic === undefined && rawContent === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (message.type === 'private') {
    if (streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
    if (rawTopic !== undefined) throw badRequest('Direct messages cannot have topics.');
  }
  if (propagateMode !== 'change_one' && rawTopic === undefined && streamId === undefined) {
    throw badRequest('Invalid propagate_mode without topic edit');
  }
  if (rawContent !== undefined && streamId !== undefined) throw badRequest('Cannot change message content while changing channel');

  let content: string | undefined;
  if (rawContent !== undefined) {
    if (rawContent.includes('\u0000')) throw badRequest('Message must not contain null bytes');
    content = normalizeContent(rawContent.trim() === '' ? '(deleted)' : rawContent, settings.maxMessageLength);
  }
  let newTopic: string | undefined;
  if (rawTopic !== undefined) {
    newTopic = normalizeTopic(store, rawTopic, settings.maxTopicLength);
    if (newTopic === '' && realm.mandatory_topics) throw badRequest("Topic can't be empty");
  }

  const contentChanged = content !== undefined && content !== message.content;
  const topicChanged = newTopic !== undefined && newTopic !== message.topic;
  const streamChanged = streamId !== undefined && streamId !== message.stream_id;
  if (!contentChanged && !topicChanged && !streamChanged) throw badRequest('Nothing to change');

  // Content: only the sender, while editing is on and within the time limit.
  if (contentChanged) {
    if (!realm.allow_message_editing) throw badRequest('Your organization has turned off message editing');
    if (message.sender_id !== user.user_id) throw badRequest("You don't have permission to edit this message");
    const limit = realm.message_content_edit_limit_seconds;
    if (limit !== null && now - message.timestamp > limit + EDIT_LIMIT_BUFFER_SECONDS) {
      throw badRequest('The time limit for editing this message has past');
    }
  }

  // Moves: who may, to where, and which messages.
  let move: MovePlan | undefined;
  if (topicChanged || streamChanged) {
    const fromStream = store.channels.get(message.stream_id!)!;
    const oldTopic = message.topic;
    const targetTopic = topicChanged ? newTopic! : oldTopic;
    const resolveOnly = topicChanged && !streamChanged ? resolveKind(oldTopic, targetTopic) : null;
    if (topicChanged && oldTopic === '' && /^(✔\s*)+$/.test(targetTopic)) {
      throw badRequest('General chat cannot be marked as resolved');
    }
    if (topicChanged) {
      if (resolveOnly) {
        const can =
          store.userHasGroupSetting(user.user_id, realm.can_resolve_topics_group) ||
          store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_topics_group);
        if (!can) throw badRequest("You don't have permission to resolve topics.");
      } else if (!store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_topics_group)) {
        throw badRequest("You don't have permission to edit this message");
      }
    }
    let toStream = fromStream;
    if (streamChanged) {
      if (!store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_channels_group)) {
        throw badRequest("You don't have permission to move this message");
      }
      const target = store.channels.get(streamId!);
      if (!target || target.is_archived || !store.canAccessChannelContent(user, target)) throw badRequest('Invalid channel ID');
      if (!store.userHasGroupSetting(user.user_id, target.can_send_message_group)) {
        throw badRequest('You do not have permission to post in this channel.');
      }
      toStream = target;
    }
    const inTopic = topicMessageIds(store, user, fromStream.stream_id, oldTopic);
    const ids =
      propagateMode === 'change_one' ? [message.id] : propagateMode === 'change_later' ? inTopic.filter((id) => id >= message.id) : inTopic;
    move = { ids, fromStream, toStream, oldTopic, newTopic: targetTopic, topicChanged, streamChanged, resolveOnly };
    timeLimitCheck(store, user, move, now);
  }

  let rendered: Rendered | undefined;
  if (contentChanged) {
    rendered = renderMarkdown(store, content!);
    if (message.type === 'stream') {
      const streamAfter = move?.toStream.stream_id ?? message.stream_id!;
      checkWildcardMentions(store, user, rendered, streamAfter, move?.newTopic ?? message.topic);
    }
  }

  // ---- everything is valid: apply ----
  const listenersBefore = messageListeners(store, message);
  const orig = { content: message.content, rendered: message.rendered_content, stream: message.stream_id, topic: message.topic };
  const detached: Attachment[] = [];
  if (contentChanged) {
    const before = referencedAttachments(store, message.content, message.sender_id);
    const after = new Set(referencedAttachments(store, content!, message.sender_id));
    message.content = content!;
    message.rendered_content = rendered!.html;
    message.is_me_message = rendered!.isMeMessage;
    message.last_edit_timestamp = now;
    for (const a of after) a.message_ids.add(message.id);
    for (const a of before) {
      if (after.has(a)) continue;
      a.message_ids.delete(message.id);
      if (a.message_ids.size === 0) detached.push(a);
    }
    const groupMembers = new Set<number>();
    for (const g of rendered!.mentionedGroupIds) for (const u of store.groupMembersRecursive(g)) groupMembers.add(u);
    for (const uid of store.messageAudience(message)) applyMentionFlags(store, uid, message.id, rendered!, groupMembers);
  }
  if (move) {
    for (const id of move.ids) {
      const m = store.messages.get(id)!;
      const entry: EditHistoryEntry = { user_id: user.user_id, timestamp: now };
      if (id === message.id && contentChanged) {
        entry.prev_content = orig.content;
        entry.prev_rendered_content = orig.rendered;
      }
      if (move.streamChanged) {
        entry.prev_stream = move.fromStream.stream_id;
        entry.stream = move.toStream.stream_id;
      }
      if (move.topicChanged) {
        entry.prev_topic = m.topic;
        entry.topic = move.newTopic;
      }
      m.edit_history.unshift(entry);
      m.stream_id = move.toStream.stream_id;
      m.recipient_id = move.toStream.recipient_id;
      m.topic = move.newTopic;
      if (!move.resolveOnly) m.last_moved_timestamp = now;
    }
    store.reindexMessages(move.ids, move.fromStream.stream_id, move.toStream.stream_id);
  } else if (contentChanged) {
    message.edit_history.unshift({ user_id: user.user_id, timestamp: now, prev_content: orig.content, prev_rendered_content: orig.rendered });
  }

  notifyUpdate(ctx, message, move, listenersBefore, orig, propagateMode, contentChanged, now);
  if (move) sendMoveNotifications(ctx, move, message.id, propagateMode, notifyOld, notifyNew);
  return { detached_uploads: detached.map((a) => serializeAttachment(store, a)) };
}

function notifyUpdate(
  ctx: RouteContext,
  message: Message,
  move: MovePlan | undefined,
  listenersBefore: Set<number>,
  orig: { content: string; rendered: string; stream: number | undefined; topic: string },
  propagateMode: string,
  contentChanged: boolean,
  now: number,
): void {
  const { store } = ctx;
  const listenersAfter = messageListeners(store, message);
  // Users who could read the message before and cannot any more (moved to a channel they cannot see).
  const losing = new Set([...listenersBefore].filter((id) => !store.canSeeMessage(store.users.get(id)!, message)));
  const event: Record<string, unknown> = {
    type: 'update_message',
    user_id: ctx.user.user_id,
    rendering_only: false,
    message_id: message.id,
    message_ids: move ? [...move.ids].sort((a, b) => a - b) : [message.id],
    edit_timestamp: now,
  };
  if (orig.stream !== undefined) {
    event.stream_id = orig.stream;
    event.stream_name = move?.fromStream.name ?? store.channels.get(orig.stream)?.name;
  }
  if (move) {
    event.propagate_mode = propagateMode;
    event.orig_subject = orig.topic;
    if (move.streamChanged) event.new_stream_id = move.toStream.stream_id;
    if (move.topicChanged) {
      event.subject = move.newTopic;
      event.topic_links = [];
    }
  }
  if (contentChanged) {
    Object.assign(event, {
      orig_content: orig.content,
      orig_rendered_content: orig.rendered,
      prev_rendered_content_version: 1,
      content: message.content,
      rendered_content: message.rendered_content,
      is_me_message: message.is_me_message,
    });
  }
  const recipients = [...new Set([...listenersBefore, ...listenersAfter])].filter((id) => !losing.has(id));
  ctx.events.notify(recipients, (queue) => {
    const allowEmpty = queue.options.capabilities.empty_topic_name === true;
    const e: Record<string, unknown> & { type: string } = {
      ...(event as { type: string }),
      flags: store.receivedMessage(queue.userId, message) ? store.messageFlags(queue.userId, message) : [],
    };
    if (typeof e.orig_subject === 'string') e.orig_subject = displayTopic(store, e.orig_subject, allowEmpty);
    if (typeof e.subject === 'string') e.subject = displayTopic(store, e.subject, allowEmpty);
    return e;
  });

  if (!move) return;
  // Users who can no longer read the moved messages see them deleted: one event with
  // bulk_message_deletion, else one per message.
  if (losing.size > 0) {
    const ids = [...move.ids].sort((a, b) => a - b);
    const base = { type: 'delete_message', message_type: 'stream', stream_id: move.fromStream.stream_id, topic: orig.topic };
    ids.forEach((id, i) =>
      ctx.events.notify(losing, (queue) => {
        if (queue.options.capabilities.bulk_message_deletion) return i === 0 ? { ...base, message_ids: ids } : null;
        return { ...base, message_id: id };
      }),
    );
  }
  // Users who still see the messages but no longer receive them (not subscribed to the new
  // channel) have them marked as read, as Zulip does.
  if (move.streamChanged) {
    for (const uid of listenersBefore) {
      if (losing.has(uid)) continue;
      const changed = move.ids.filter((id) => {
        const m = store.messages.get(id)!;
        return !store.receivedMessage(uid, m) && store.setFlag(uid, id, 'read', true);
      });
      if (changed.length > 0) notifyFlags(ctx, uid, 'add', 'read', changed);
    }
  }
}

/** Zulip's send_message_moved_breadcrumbs and resolve-topic notifications. */
function sendMoveNotifications(
  ctx: RouteContext,
  move: MovePlan,
  targetId: number,
  propagateMode: string,
  notifyOld: boolean,
  notifyNew: boolean,
): void {
  const { store, user } = ctx;
  const mention = `@_**${user.full_name}**`;
  if (move.resolveOnly) {
    const participants = new Set<number>();
    for (const id of move.ids) {
      const m = store.messages.get(id)!;
      participants.add(m.sender_id);
      for (const r of m.reactions) participants.add(r.user_id);
    }
    const text = move.resolveOnly === 'resolve' ? 'has marked this topic as resolved.' : 'has marked this topic as unresolved.';
    sendNotification(ctx, move.toStream, move.newTopic, `${mention} ${text}`, participants);
    return;
  }
  const count = move.ids.length;
  const oldLink = `#**${move.fromStream.name}>${move.oldTopic}**`;
  const newLink = `#**${move.toStream.name}>${move.newTopic}**`;
  if (notifyNew) {
    const link = `${ctx.baseUrl}${channelNarrowPath(move.toStream.stream_id, move.toStream.name)}/topic/${encodeHashComponent(move.newTopic)}/near/${targetId}`;
    const text =
      propagateMode === 'change_all'
        ? `This topic was moved here from ${oldLink} by ${mention}.`
        : count === 1
          ? `[A message](${link}) was moved here from ${oldLink} by ${mention}.`
          : `[${count} messages](${link}) were moved here from ${oldLink} by ${mention}.`;
    sendNotification(ctx, move.toStream, move.newTopic, text, new Set());
  }
  if (notifyOld) {
    const text =
      propagateMode === 'change_all'
        ? `This topic was moved to ${newLink} by ${mention}.`
        : count === 1
          ? `A message was moved from this topic to ${newLink} by ${mention}.`
          : `${count} messages were moved from this topic to ${newLink} by ${mention}.`;
    sendNotification(ctx, move.fromStream, move.oldTopic, text, new Set());
  }
}

// ---- flags -----------------------------------------------------------------------------------------

function checkFlagRequest(op: string, flag: string): void {
  if (!EDITABLE_FLAGS.has(flag) && !NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
}

/** `message_details` of a `remove read` event: what clients need to rebuild unread counts. */
function messageDetails(store: Store, userId: number, ids: number[]): Record<string, Record<string, unknown>> {
  const details: Record<string, Record<string, unknown>> = {};
  for (const id of ids) {
    const m = store.messages.get(id)!;
    const entry: Record<string, unknown> =
      m.type === 'stream'
        ? { type: 'stream', stream_id: m.stream_id!, topic: m.topic }
        : { type: 'private', user_ids: m.dm_user_ids!.filter((u) => u !== userId) };
    if (['mentioned', 'group_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'].some((f) => store.hasFlag(userId, id, f))) {
      entry.mentioned = true;
    }
    details[String(id)] = entry;
  }
  return details;
}

function notifyFlags(ctx: Pick<RouteContext, 'store' | 'events'>, userId: number, op: 'add' | 'remove', flag: string, ids: number[]): void {
  const messages = [...ids].sort((a, b) => a - b);
  const event: Record<string, unknown> & { type: string } = { type: 'update_message_flags', op, operation: op, flag, messages, all: false };
  if (op === 'remove' && flag === 'read') event.message_details = messageDetails(ctx.store, userId, messages);
  ctx.events.notify([userId], event);
}

/**
 * Zulip's do_update_message_flags. Adding needs every message to be readable ("Invalid
 * message(s)"); removing `read` skips messages of channels the user is not subscribed to.
 */
function updateFlags(
  ctx: RouteContext,
  ids: number[],
  op: 'add' | 'remove',
  flag: string,
): { changed: number[]; skippedChannels: number[] } {
  const { store, user } = ctx;
  const uid = user.user_id;
  const targets: Message[] = [];
  const skippedChannels = new Set<number>();
  for (const id of new Set(ids)) {
    const m = store.messages.get(id);
    const visible = m !== undefined && store.canSeeMessage(user, m);
    if (op === 'add') {
      if (!visible) throw invalidMessage();
      targets.push(m);
      continue;
    }
    if (!visible) continue;
    if (flag === 'read' && m.type === 'stream' && !store.isSubscribed(uid, m.stream_id!)) {
      skippedChannels.add(m.stream_id!);
      continue;
    }
    targets.push(m);
  }
  const changed = targets.filter((m) => store.setFlag(uid, m.id, flag, op === 'add')).map((m) => m.id);
  if (changed.length > 0) notifyFlags(ctx, uid, op, flag, changed);
  return { changed, skippedChannels: [...skippedChannels].sort((a, b) => a - b) };
}

function postFlags(ctx: RouteContext): Record<string, unknown> {
  const ids = ctx.params.intArray('messages');
  const op = ctx.params.str('op');
  const flag = ctx.params.str('flag');
  checkFlagRequest(op, flag);
  updateFlags(ctx, ids, op as 'add' | 'remove', flag);
  return { messages: ids };
}

function postFlagsForNarrow(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user } = ctx;
  const anchorRaw = p.optStr('anchor');
  const includeAnchor = p.bool('include_anchor', true);
  let numBefore = nonNegative('num_before', p.optInt('num_before'));
  let numAfter = nonNegative('num_after', p.optInt('num_after'));
  const narrow: NarrowTerm[] = parseNarrow(p.optJson('narrow'));
  const op = p.str('op');
  const flag = p.str('flag');
  checkFlagRequest(op, flag);
  if (anchorRaw === undefined) throw missingArgument('anchor');
  const requested = parseAnchor(anchorRaw, false);
  validateNarrow(store, user, narrow);
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');
  // Zulip's clamp: num_before + num_after stays within MAX_MESSAGES_PER_UPDATE.
  numBefore = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  numAfter = Math.min(numAfter, Math.max(MAX_MESSAGES_PER_UPDATE - numBefore, MAX_MESSAGES_PER_UPDATE / 2));
  const plan = planSearch(store, user, narrow);
  const anchor = requested ?? firstUnreadId(store, user, plan) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const window = fetchWindow(store, plan, { anchor, includeAnchor, numBefore, numAfter });
  const ids = window.messages.map((m) => m.id);
  const { changed, skippedChannels } = updateFlags(ctx, ids, op as 'add' | 'remove', flag);
  const body: Record<string, unknown> = {
    processed_count: ids.length,
    updated_count: changed.length,
    first_processed_id: ids[0] ?? null,
    last_processed_id: ids[ids.length - 1] ?? null,
    found_oldest: window.foundOldest,
    found_newest: window.foundNewest,
  };
  if (flag === 'read' && op === 'remove') body.ignored_because_not_subscribed_channels = skippedChannels;
  return body;
}

// ---- register state --------------------------------------------------------------------------------

function isMutedFor(store: Store, userId: number, m: Message): boolean {
  if (m.type !== 'stream') return false;
  const policy = store.userTopics.get(userId)?.get(store.userTopicKey(m.stream_id!, m.topic))?.visibility_policy;
  if (policy === 1) return true;
  if (policy === 2 || policy === 3) return false;
  return store.subscription(m.stream_id!, userId)?.is_muted === true;
}

/** The `unread_msgs` register object (https://zulip.com/api/register-queue, unread_msgs). */
export function unreadMessages(store: Store, user: User, allowEmptyTopicName: boolean): Record<string, unknown> {
  const uid = user.user_id;
  const unread = [...(store.flags.get(uid)?.get('unread') ?? [])].sort((a, b) => a - b);
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  let count = 0;
  for (const id of unread) {
    const m = store.messages.get(id);
    if (!m || !store.receivedMessage(uid, m)) continue;
    const muted = isMutedFor(store, uid, m);
    if (m.type === 'stream') {
      const key = `${m.stream_id}\u0000${m.topic}`;
      let entry = streams.get(key);
      if (!entry) streams.set(key, (entry = { stream_id: m.stream_id!, topic: displayTopic(store, m.topic, allowEmptyTopicName), unread_message_ids: [] }));
      entry.unread_message_ids.push(id);
    } else if (m.dm_user_ids!.length <= 2) {
      const other = m.dm_user_ids!.find((u) => u !== uid) ?? uid;
      pms.set(other, [...(pms.get(other) ?? []), id]);
    } else {
      const key = m.dm_user_ids!.join(',');
      huddles.set(key, [...(huddles.get(key) ?? []), id]);
    }
    if (!muted) count++;
    const direct = store.hasFlag(uid, id, 'mentioned') || store.hasFlag(uid, id, 'group_mentioned');
    const wildcard = store.hasFlag(uid, id, 'stream_wildcard_mentioned') || store.hasFlag(uid, id, 'topic_wildcard_mentioned');
    if (direct || (wildcard && !muted)) mentions.push(id);
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: false,
  };
}

/** Starred messages the user can still read, ascending. */
export function starredMessageIds(store: Store, user: User): number[] {
  const starred = store.flags.get(user.user_id)?.get('starred') ?? new Set<number>();
  return [...starred]
    .filter((id) => {
      const m = store.messages.get(id);
      return m !== undefined && store.canSeeMessage(user, m);
    })
    .sort((a, b) => a - b);
}

/** `unread_msgs` (fetch types `message` and `update_message_flags`) and `starred_messages`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (ctx.wants('message') && ctx.wants('update_message_flags')) {
    state.unread_msgs = unreadMessages(ctx.store, ctx.user, ctx.options.capabilities.empty_topic_name === true);
  }
  if (ctx.wants('starred_messages')) state.starred_messages = starredMessageIds(ctx.store, ctx.user);
  return state;
}

export const routes: Route[] = [
  { method: 'GET', path: '/messages', handler: getMessages },
  { method: 'POST', path: '/messages', handler: sendMessage },
  { method: 'GET', path: '/messages/:message_id', handler: getMessage },
  { method: 'PATCH', path: '/messages/:message_id', handler: updateMessage },
  { method: 'POST', path: '/messages/flags', handler: postFlags },
  { method: 'POST', path: '/messages/flags/narrow', handler: postFlagsForNarrow },
];
