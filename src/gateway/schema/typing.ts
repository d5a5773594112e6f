/**
 * Typing notifications: the `startTyping` and `stopTyping` mutations, for a direct conversation or a
 * channel topic. https://zulip.com/api/set-typing-status
 *
 * Clients follow Zulip's protocol: startTyping when composing begins and again every
 * `server_typing_started_wait_period_milliseconds` while it goes on, stopTyping after
 * `server_typing_stopped_wait_period_milliseconds` of inactivity or when the draft is abandoned.
 * The server keeps no state; it fans the notification out to the recipients' event queues.
 * `startTypingMessageEdit` / `stopTypingMessageEdit` do the same for editing a sent message
 * (https://zulip.com/api/set-typing-status-for-message-edit, feature level 351).
 */
import type { TypingOp } from '../../zulip/model/typing.js';
import { setTypingStatus, setTypingStatusForMessageEdit } from '../../zulip/routes/typing.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';

/** Where the caller is typing. */
interface TypingTarget {
  userIds?: number[] | null;
  channelId?: number | null;
  topic?: string | null;
}

const TypingTargetInput = builder.inputRef<TypingTarget>('TypingTarget').implement({
  description: 'A conversation being composed in: either `userIds` (direct) or `channelId` with `topic`.',
  fields: (t) => ({
    userIds: t.field({
      type: ['Long'],
      required: false,
      description: 'Direct message: the recipients\u2019 user IDs (the caller may be left out).',
    }),
    channelId: t.field({
      type: 'Long',
      required: false,
      description: `Channel message: the channel (needs feature level ${featureLevels.channelTyping}).`,
    }),
    topic: t.string({
      required: false,
      description: 'Channel message: the topic; "(no topic)" and the empty-topic display name mean the empty topic.',
    }),
  }),
});

async function sendTyping(ctx: Context, op: TypingOp, to: TypingTarget): Promise<boolean> {
  const direct = to.userIds != null;
  const channel = to.channelId != null;
  if (direct === channel) throw badInput('to: give exactly one of userIds or channelId.');
  if (direct) {
    if (to.topic != null) throw badInput('to: a topic only goes with channelId.');
    // No `type`: the server's default is the direct type on every version ("private" before FL 174).
    await setTypingStatus(ctx.connection, { op, to: to.userIds! });
    return true;
  }
  await requireFeatureLevel(ctx, featureLevels.channelTyping, 'Typing notifications in a channel');
  const level = await getFeatureLevel(ctx);
  await setTypingStatus(ctx.connection, {
    op,
    type: level >= featureLevels.channelMessageType ? 'channel' : 'stream',
    streamId: to.channelId!,
    ...(to.topic != null && { topic: to.topic }),
  });
  return true;
}

const description = (what: string) =>
  `Tells the recipients the caller ${what}. Direct: every participant with typing notifications on; channel: the ` +
  `other subscribers. Always true; errors (unknown users or channel, missing topic, topic too long, typing ` +
  `notifications turned off) come from the server as BAD_REQUEST. Channel typing needs feature level ` +
  `${featureLevels.channelTyping} (UNSUPPORTED_BY_SERVER below).`;

builder.mutationField('startTyping', (t) =>
  t.boolean({
    extensions: reaches('set-typing-status'),
    description: description('started typing (repeat while typing goes on)'),
    args: { to: t.arg({ type: TypingTargetInput, required: true, description: 'The conversation.' }) },
    resolve: (_root, args, ctx) => sendTyping(ctx, 'start', args.to),
  }),
);

builder.mutationField('stopTyping', (t) =>
  t.boolean({
    extensions: reaches('set-typing-status'),
    description: description('stopped typing'),
    args: { to: t.arg({ type: TypingTargetInput, required: true, description: 'The conversation.' }) },
    resolve: (_root, args, ctx) => sendTyping(ctx, 'stop', args.to),
  }),
);

async function sendEditTyping(ctx: Context, op: TypingOp, messageId: number): Promise<boolean> {
  if (messageId <= 0) throw badInput('`messageId` must be a positive message ID.', { argument: 'messageId' });
  await requireFeatureLevel(ctx, featureLevels.editTyping, 'Typing notifications for message edits');
  await setTypingStatusForMessageEdit(ctx.connection, { messageId, op });
  return true;
}

const editDescription = (what: string) =>
  `Tells the message’s readers (the channel’s subscribers, or the conversation’s participants, with ` +
  `typing notifications on) that the caller ${what}. Always true. Only someone who may edit the message’s ` +
  `content now may call it; refusals come from the server as BAD_REQUEST ("You don't have permission to edit this ` +
  `message", "The time limit for editing this message has past", "Invalid message(s)"). Needs feature level ` +
  `${featureLevels.editTyping} (UNSUPPORTED_BY_SERVER below).`;

builder.mutationFields((t) => ({
  startTypingMessageEdit: t.boolean({
    extensions: reaches('set-typing-status-for-message-edit'),
    description: editDescription('started editing the message (repeat while editing goes on)'),
    args: { messageId: t.arg({ type: 'Long', required: true, description: 'The message being edited.' }) },
    resolve: (_root, args, ctx) => sendEditTyping(ctx, 'start', args.messageId),
  }),
  stopTypingMessageEdit: t.boolean({
    extensions: reaches('set-typing-status-for-message-edit'),
    description: editDescription('stopped editing the message'),
    args: { messageId: t.arg({ type: 'Long', required: true, description: 'The message that was being edited.' }) },
    resolve: (_root, args, ctx) => sendEditTyping(ctx, 'stop', args.messageId),
  }),
}));
