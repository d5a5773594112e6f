/**
 * The message mutations: `sendMessage`, `editMessage`, `updateMessageFlags` and
 * `updateMessageFlagsForNarrow`. Arguments are checked before any upstream call.
 * https://zulip.com/api/send-message, https://zulip.com/api/update-message,
 * https://zulip.com/api/update-message-flags, https://zulip.com/api/update-message-flags-for-narrow
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { PropagateMode } from '../../../zulip/model/messages.js';
import {
  sendMessage,
  updateMessage,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
} from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { MoveMessagesTimeLimitExceededError } from '../../typed-errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../../upstream/feature-level.js';
import { anchorFrom, MessageAnchorInput } from './cursor.js';
import { EditableMessageFlagEnum, FlagOperationEnum, PropagateModeEnum } from './enums.js';
import { NarrowInput, narrowFor } from './narrow.js';
import {
  EditMessagePayloadRef,
  SendMessagePayloadRef,
  UpdateMessageFlagsForNarrowPayloadRef,
  UpdateMessageFlagsPayloadRef,
} from './payloads.js';

builder.mutationFields((t) => ({
  sendMessage: t.field({
    zulip: { reaches: ['send-message'], writes: ['message'] },
    type: SendMessagePayloadRef,
    description:
      'Sends a message: to a channel (`channelId` or `channelName`, and `topic`) or directly to users (`to`). ' +
      'Exactly one destination.',
    args: {
      channelId: t.arg({ type: 'Long', required: false, description: 'The channel to send to.' }),
      channelName: t.arg.string({ required: false, description: 'The channel to send to, by name.' }),
      topic: t.arg.string({ required: false, description: 'The topic (channel messages).' }),
      to: t.arg({ type: ['Long'], required: false, description: 'User IDs of the recipients of a direct message.' }),
      content: t.arg.string({ required: true, description: 'Markdown content.' }),
      readBySender: t.arg.boolean({
        required: false,
        description: 'Whether it starts read for the sender (feature level 236; default: a server heuristic).',
      }),
      queueId: t.arg.string({ required: false, description: 'Local echo: the caller\u2019s event queue ID (then localId too).' }),
      localId: t.arg.string({ required: false, description: 'Local echo: an ID the `message` event will carry back.' }),
    },
    resolve: async (_root, args, ctx) => {
      const destinations = [args.channelId, args.channelName, args.to].filter((d) => d != null).length;
      if (destinations !== 1) throw badInput('sendMessage: give exactly one of channelId, channelName and to.');
      const direct = args.to != null;
      if (direct && args.to!.length === 0) throw badInput('sendMessage: `to` must name at least one user.');
      if (direct && args.topic != null) throw badInput('sendMessage: direct messages have no topic.');
      const type = direct
        ? (await getFeatureLevel(ctx)) >= featureLevels.directMessageType
          ? 'direct'
          : 'private'
        : 'stream'; // accepted by every server version; `channel` only since feature level 248
      return sendMessage(ctx.connection, {
        type,
        to: args.to ?? args.channelId ?? args.channelName!,
        content: args.content,
        topic: args.topic ?? undefined,
        readBySender: args.readBySender ?? undefined,
        queueId: args.queueId ?? undefined,
        localId: args.localId ?? undefined,
      });
    },
  }),
  editMessage: t.field({
    zulip: { reaches: ['update-message'], writes: ['update_message'] },
    type: EditMessagePayloadRef,
    errors: { types: [MoveMessagesTimeLimitExceededError] },
    description:
      'Edits a message\u2019s content, or moves it (and, by `propagateMode`, the rest of its topic) to another topic ' +
      'or channel. Content and channel cannot change together; topic and channel apply to channel messages only. ' +
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED is returned as a result; other refusals (BAD_REQUEST, ' +
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED, TOPIC_WILDCARD_MENTION_NOT_ALLOWED...) are GraphQL errors with that code.',
    args: {
      messageId: t.arg({ type: 'Long', required: true, description: 'The message to edit or move.' }),
      content: t.arg.string({ required: false, description: 'New Markdown content.' }),
      topic: t.arg.string({ required: false, description: 'New topic (resolve a topic with "\u2714 " + its name).' }),
      channelId: t.arg({ type: 'Long', required: false, description: 'Channel to move to.' }),
      propagateMode: t.arg({ type: PropagateModeEnum, required: false, description: 'Which messages move (default CHANGE_ONE).' }),
      sendNotificationToOldThread: t.arg.boolean({
        required: false,
        description: 'Post a notice in the old topic (default false).',
      }),
      sendNotificationToNewThread: t.arg.boolean({
        required: false,
        description: 'Post a notice in the new topic (default true; not for resolving/unresolving).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const result = await updateMessage(ctx.connection, {
        messageId: args.messageId,
        content: args.content ?? undefined,
        topic: args.topic ?? undefined,
        streamId: args.channelId ?? undefined,
        propagateMode: (args.propagateMode ?? undefined) as PropagateMode | undefined,
        sendNotificationToOldThread: args.sendNotificationToOldThread ?? undefined,
        sendNotificationToNewThread: args.sendNotificationToNewThread ?? undefined,
      });
      return { messageId: args.messageId, detachedUploads: result.detached_uploads ?? [], baseUrl: ctx.connection.baseUrl };
    },
  }),
  updateMessageFlags: t.field({
    zulip: { reaches: ['update-message-flags'], writes: ['update_message_flags'] },
    type: UpdateMessageFlagsPayloadRef,
    description: 'Adds or removes a personal flag on messages by ID.',
    args: {
      messageIds: t.arg({ type: ['Long'], required: true, description: 'The target messages.' }),
      op: t.arg({ type: FlagOperationEnum, required: true, description: 'Add or remove.' }),
      flag: t.arg({ type: EditableMessageFlagEnum, required: true, description: 'Which flag.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { messages } = await updateMessageFlags(ctx.connection, { messages: args.messageIds, op: args.op, flag: args.flag });
      return { messageIds: messages ?? args.messageIds };
    },
  }),
  updateMessageFlagsForNarrow: t.field({
    zulip: { reaches: ['update-message-flags-for-narrow'], writes: ['update_message_flags'] },
    type: UpdateMessageFlagsForNarrowPayloadRef,
    description:
      'Adds or removes a personal flag on up to `numBefore + 1 + numAfter` messages of a narrow around an anchor ' +
      '(the server may process fewer). Feature level 155. For marking as read, add `is: [UNREAD]` to the narrow.',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages (default: all).' }),
      anchor: t.arg({ type: MessageAnchorInput, required: true, description: 'Where the range starts.' }),
      includeAnchor: t.arg.boolean({ required: false, description: 'Whether the anchor message is in the range (default true).' }),
      numBefore: t.arg.int({ required: true, description: 'Messages before the anchor.' }),
      numAfter: t.arg.int({ required: true, description: 'Messages after the anchor.' }),
      op: t.arg({ type: FlagOperationEnum, required: true, description: 'Add or remove.' }),
      flag: t.arg({ type: EditableMessageFlagEnum, required: true, description: 'Which flag.' }),
    },
    resolve: async (_root, args, ctx) => {
      for (const [name, value] of [['numBefore', args.numBefore], ['numAfter', args.numAfter]] as const) {
        if (value < 0) throw badInput(`\`${name}\` must not be negative.`, { argument: name });
      }
      if (args.includeAnchor === false && args.numBefore > 0 && args.numAfter > 0) {
        throw badInput('`includeAnchor: false` needs `numBefore` or `numAfter` to be 0 (the anchor can only be excluded at an end of the range).', {
          argument: 'includeAnchor',
        });
      }
      const anchor = anchorFrom(args.anchor, 'anchor');
      await requireFeatureLevel(ctx, featureLevels.flagsForNarrow, 'updateMessageFlagsForNarrow');
      return updateMessageFlagsForNarrow(ctx.connection, {
        anchor,
        includeAnchor: args.includeAnchor ?? undefined,
        numBefore: args.numBefore,
        numAfter: args.numAfter,
        narrow: await narrowFor(ctx, args.narrow),
        op: args.op,
        flag: args.flag,
      });
    },
  }),
}));
