/**
 * Events about messages: new, edited, moved and deleted messages, reactions, personal flags and
 * integration submessages. A payload that names a message or user resolves it through the loaders
 * of the request, shared by every subscription of the credential for one upstream batch.
 */
import type { Reaction } from '../../../zulip/model/messages.js';
import { builder } from '../../builder.js';
import type { FlagsData, MessageDeletedData, MessageEventData, MessageMovedData, MessageUpdatedData, ReactionData } from '../../events/model.js';
import { ChannelRef, loadChannel } from '../channels/index.js';
import { MessageRef, MessageTypeEnum, PropagateModeEnum } from '../messages/index.js';
import { ReactionRef } from '../reactions.js';
import { UserRef } from '../users.js';
import { eventType, otherType } from './kinds.js';
import { loadUser, num, str, type Payload } from './payloads.js';

export const MessageEventRef = eventType<Payload<MessageEventData>>('MessageEvent', 'A new message (kind MESSAGE).');
builder.objectFields(MessageEventRef, (t) => ({
  message: t.field({
    type: MessageRef,
    description: 'The message, with the caller\u2019s flags and HTML content, as `message(id)` returns it.',
    resolve: (p) => p.event.message,
  }),
}));

export const MessageUpdatedEventRef = eventType<Payload<MessageUpdatedData>>(
  'MessageUpdatedEvent',
  'A message\u2019s content was edited, or re-rendered by the server (kind MESSAGE_UPDATED).',
);
builder.objectFields(MessageUpdatedEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The edited message.', resolve: (p) => p.event.wire.message_id }),
  editedMessage: t.field({
    type: MessageRef,
    nullable: true,
    description: 'The message as it is now (loaded by ID); null if it is gone or invisible.',
    resolve: (p, _args, ctx) => ctx.loaders.messages.load(p.event.wire.message_id),
  }),
  editorId: t.field({
    type: 'Long',
    nullable: true,
    description: 'Who edited it; null for rendering-only updates.',
    resolve: (p) => p.event.wire.user_id ?? null,
  }),
  editor: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who edited it; null for rendering-only updates.',
    resolve: (p, _args, ctx) => loadUser(ctx, p.event.wire.user_id),
  }),
  renderingOnly: t.boolean({
    description: 'True when only the rendering changed (e.g. a link preview), not the content.',
    resolve: (p) => p.event.wire.rendering_only === true,
  }),
  content: t.string({
    nullable: true,
    description: 'The new content, rendered HTML.',
    resolve: (p) => p.event.wire.rendered_content ?? null,
  }),
  rawContent: t.string({ nullable: true, description: 'The new content, Markdown.', resolve: (p) => p.event.wire.content ?? null }),
  previousContent: t.string({
    nullable: true,
    description: 'The content before the edit, rendered HTML.',
    resolve: (p) => p.event.wire.orig_rendered_content ?? null,
  }),
  previousRawContent: t.string({
    nullable: true,
    description: 'The content before the edit, Markdown.',
    resolve: (p) => p.event.wire.orig_content ?? null,
  }),
  channelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel, for channel messages.',
    resolve: (p) => p.event.wire.stream_id ?? null,
  }),
  editTimestamp: t.field({
    type: 'Long',
    nullable: true,
    description: 'When it was edited (UNIX seconds).',
    resolve: (p) => p.event.wire.edit_timestamp ?? null,
  }),
}));

export const MessageMovedEventRef = eventType<Payload<MessageMovedData>>(
  'MessageMovedEvent',
  'Messages moved to another topic and/or channel (kind MESSAGE_MOVED). Resolving or unresolving a topic is a move.',
);
builder.objectFields(MessageMovedEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message the move was made on.', resolve: (p) => p.event.wire.message_id }),
  messageIds: t.field({ type: ['Long'], description: 'Every message moved.', resolve: (p) => p.event.wire.message_ids }),
  editor: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who moved them.',
    resolve: (p, _args, ctx) => loadUser(ctx, p.event.wire.user_id),
  }),
  previousChannelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel they were in.',
    resolve: (p) => p.event.wire.stream_id ?? null,
  }),
  previousChannel: t.field({
    type: ChannelRef,
    nullable: true,
    description: 'The channel they were in.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.stream_id),
  }),
  channelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel they are in now.',
    resolve: (p) => p.event.wire.new_stream_id ?? p.event.wire.stream_id ?? null,
  }),
  channel: t.field({
    type: ChannelRef,
    nullable: true,
    description: 'The channel they are in now.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.new_stream_id ?? p.event.wire.stream_id),
  }),
  previousTopic: t.string({ nullable: true, description: 'The topic they were in.', resolve: (p) => p.event.wire.orig_subject ?? null }),
  topic: t.string({
    nullable: true,
    description: 'The topic they are in now.',
    resolve: (p) => p.event.wire.subject ?? p.event.wire.orig_subject ?? null,
  }),
  propagateMode: t.field({
    type: PropagateModeEnum,
    nullable: true,
    description: 'Which messages of the topic the move applied to.',
    resolve: (p) => (p.event.wire.propagate_mode as 'change_one' | 'change_later' | 'change_all' | undefined) ?? null,
  }),
}));

export const MessageDeletedEventRef = eventType<Payload<MessageDeletedData>>(
  'MessageDeletedEvent',
  'Messages were deleted, or moved where the caller cannot see them (kind MESSAGE_DELETED).',
);
builder.objectFields(MessageDeletedEventRef, (t) => ({
  messageIds: t.field({ type: ['Long'], description: 'The messages.', resolve: (p) => p.event.messageIds }),
  messageType: t.field({
    type: MessageTypeEnum,
    description: 'Channel or direct messages.',
    resolve: (p) => (p.event.wire.message_type === 'private' ? 'private' : 'stream'),
  }),
  channelId: t.field({ type: 'Long', nullable: true, description: 'Their channel.', resolve: (p) => p.event.wire.stream_id ?? null }),
  topic: t.string({ nullable: true, description: 'Their topic.', resolve: (p) => p.event.wire.topic ?? null }),
}));

export const ReactionEventRef = eventType<Payload<ReactionData>>(
  'ReactionEvent',
  'An emoji reaction was added (REACTION_ADDED) or removed (REACTION_REMOVED).',
);
builder.objectFields(ReactionEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message reacted to.', resolve: (p) => p.event.wire.message_id }),
  added: t.boolean({ description: 'True when added, false when removed.', resolve: (p) => p.event.kind === 'REACTION_ADDED' }),
  reaction: t.field({
    type: ReactionRef,
    description: 'The reaction (its `user` resolves through the same loaders as queries).',
    resolve: (p) => {
      const { emoji_name, emoji_code, reaction_type, user_id } = p.event.wire;
      return { emoji_name, emoji_code, reaction_type, user_id } as Reaction;
    },
  }),
}));

export const MessageFlagsEventRef = eventType<Payload<FlagsData>>(
  'MessageFlagsEvent',
  'The caller set (FLAGS_ADDED) or cleared (FLAGS_REMOVED) a personal flag on messages.',
);
builder.objectFields(MessageFlagsEventRef, (t) => ({
  flag: t.string({ description: 'The flag, as the server names it (`read`, `starred`...).', resolve: (p) => p.event.wire.flag }),
  added: t.boolean({ description: 'True when set, false when cleared.', resolve: (p) => p.event.kind === 'FLAGS_ADDED' }),
  messageIds: t.field({ type: ['Long'], description: 'The messages (empty when `all`).', resolve: (p) => p.event.wire.messages }),
  all: t.boolean({ description: 'True for "mark all messages as read".', resolve: (p) => p.event.wire.all === true }),
}));

export const SubmessageEventRef = otherType('SubmessageEvent', 'An integration added data to a message (kind SUBMESSAGE).');
builder.objectFields(SubmessageEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message.', resolve: (p) => num(p.event.wire, 'message_id')! }),
  submessageId: t.field({ type: 'Long', nullable: true, description: 'The submessage.', resolve: (p) => num(p.event.wire, 'submessage_id') }),
  senderId: t.field({ type: 'Long', description: 'Who added it.', resolve: (p) => num(p.event.wire, 'sender_id')! }),
  msgType: t.string({ nullable: true, description: 'The integration\u2019s message type.', resolve: (p) => str(p.event.wire, 'msg_type') }),
  content: t.string({ nullable: true, description: 'JSON text, for the integration.', resolve: (p) => str(p.event.wire, 'content') }),
}));
