/**
 * Scheduled messages ("send later"): the `scheduledMessages` query and the
 * `createScheduledMessage`, `editScheduledMessage` (feature level 184) and `deleteScheduledMessage`
 * mutations. https://zulip.com/api/get-scheduled-messages
 *
 * Errors are the chat server's, mapped once by errors.ts. In particular an unknown channel is a
 * GraphQL error with `extensions.code` STREAM_DOES_NOT_EXIST and `extensions.stream_id` (the
 * channel ID), and an unknown user or scheduled message is BAD_REQUEST.
 */
import type { ScheduledMessage, ScheduledMessageRequestType } from '../../zulip/model/scheduled-messages.js';
import {
  createScheduledMessage,
  deleteScheduledMessage,
  getScheduledMessages,
  updateScheduledMessage,
} from '../../zulip/routes/scheduled-messages.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { ChannelRef } from './channels/index.js';
import { asNode, fromList } from './node.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';

type Kind = 'CHANNEL' | 'DIRECT';

/** `stream` and `direct` are the request names every server with scheduled messages accepts. */
const REQUEST_TYPES = { CHANNEL: 'stream', DIRECT: 'direct' } as const satisfies Record<Kind, ScheduledMessageRequestType>;

const ScheduledMessageTypeEnum = builder.enumType('ScheduledMessageType', {
  description: 'Where a scheduled message goes.',
  values: {
    CHANNEL: { description: 'A topic in a channel (`stream` on the wire).' },
    DIRECT: { description: 'One or more users, as a direct message (`private` on the wire).' },
  } as const,
});

function channelIdOf(m: ScheduledMessage): number | null {
  if (m.type !== 'stream') return null;
  const to: number | number[] = m.to;
  return Array.isArray(to) ? (to[0] ?? null) : to;
}

function userIdsOf(m: ScheduledMessage): number[] {
  if (m.type !== 'private') return [];
  const to: number | number[] = m.to;
  return Array.isArray(to) ? to : [to];
}

export const ScheduledMessageRef = builder.objectRef<ScheduledMessage>('ScheduledMessage');

ScheduledMessageRef.implement({
  description:
    'A message the caller scheduled to be sent later. Its ID differs from the ID the message gets once sent. ' +
    'https://zulip.com/api/get-scheduled-messages',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The scheduled message ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (m) => m.scheduled_message_id }),
    type: t.field({
      type: ScheduledMessageTypeEnum,
      description: 'Whether it goes to a channel or to users.',
      resolve: (m) => (m.type === 'stream' ? 'CHANNEL' : 'DIRECT'),
    }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel of a CHANNEL message; null for direct messages.',
      resolve: channelIdOf,
    }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel of a CHANNEL message; null for direct messages.',
      resolve: (m, _args, ctx) => {
        const id = channelIdOf(m);
        return id === null ? null : ctx.loaders.channel(id);
      },
    }),
    recipientIds: t.field({
      type: ['Long'],
      description: 'User IDs of a DIRECT message\u2019s recipients (without the sender, unless sent to the sender alone).',
      resolve: userIdsOf,
    }),
    recipients: t.field({
      type: [UserRef],
      nullable: true,
      description: 'The recipients of a DIRECT message (see recipientIds); empty for channel messages.',
      resolve: (m, _args, ctx) => Promise.all(userIdsOf(m).map((id) => ctx.loaders.user(id))),
    }),
    topic: t.string({
      nullable: true,
      description: 'The topic of a CHANNEL message; null for direct messages.',
      resolve: (m) => (m.type === 'stream' ? m.topic : null),
    }),
    content: t.exposeString('content', { description: 'The message text (Markdown).' }),
    renderedContent: t.exposeString('rendered_content', { description: 'The message rendered as HTML.' }),
    scheduledDeliveryTimestamp: t.field({
      type: 'Long',
      description: 'When the server will send it, in UNIX seconds (UTC).',
      resolve: (m) => m.scheduled_delivery_timestamp,
    }),
    failed: t.exposeBoolean('failed', {
      description:
        'True when the server tried to send it and failed; editing it (with a new scheduledDeliveryTimestamp, ' +
        'which is then required) makes it pending again.',
    }),
  }),
});

async function findScheduledMessage(ctx: Context, id: number): Promise<ScheduledMessage | null> {
  const { scheduled_messages } = await getScheduledMessages(ctx.connection);
  return scheduled_messages.find((m) => m.scheduled_message_id === id) ?? null;
}

/** Channel messages take one channel ID as an integer; direct messages a list of user IDs. */
function wireTo(kind: Kind, to: number[]): number | number[] {
  return kind === 'CHANNEL' && to.length === 1 ? to[0]! : to;
}

/** The payload of a mutation that leaves a scheduled message behind. */
const scheduledMessagePayload = (what: 'Create' | 'Edit') =>
  builder.objectRef<{ id: number }>(`${what}ScheduledMessagePayload`).implement({
    description: what === 'Create' ? 'A message that was scheduled.' : 'A scheduled message that was edited.',
    fields: (t) => ({
      id: t.field({ type: 'Long', description: 'The scheduled message ID.', resolve: (p) => p.id }),
      scheduledMessage: t.field({
        type: ScheduledMessageRef,
        nullable: true,
        description: 'The scheduled message as the server stored it (fetched only when selected); null if already gone.',
        resolve: (p, _args, ctx) => findScheduledMessage(ctx, p.id),
      }),
    }),
  });

const CreateScheduledMessagePayloadRef = scheduledMessagePayload('Create');
const EditScheduledMessagePayloadRef = scheduledMessagePayload('Edit');

const DeleteScheduledMessagePayloadRef = builder.objectRef<{ id: number }>('DeleteScheduledMessagePayload').implement({
  description: 'A scheduled message that was deleted (and so will not be sent).',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The deleted scheduled message\u2019s ID.', resolve: (p) => p.id }),
  }),
});

builder.queryField('scheduledMessages', (t) =>
  t.field({
    extensions: reaches('get-scheduled-messages'),
    type: [ScheduledMessageRef],
    nullable: true,
    description: 'The caller\u2019s undelivered scheduled messages (failed ones included), soonest first.',
    resolve: (_root, _args, ctx) => listScheduledMessages(ctx),
  }),
);

async function listScheduledMessages(ctx: Context): Promise<ScheduledMessage[]> {
  return (await getScheduledMessages(ctx.connection)).scheduled_messages;
}

asNode(ScheduledMessageRef, {
  key: (m) => m.scheduled_message_id,
  load: fromList(listScheduledMessages, (m) => m.scheduled_message_id, 'scheduled message'),
});

builder.mutationFields((t) => ({
  createScheduledMessage: t.field({
    extensions: reaches('create-scheduled-message'),
    type: CreateScheduledMessagePayloadRef,
    description:
      'Schedules a message. Errors: STREAM_DOES_NOT_EXIST (extensions.stream_id) for an unknown channel, ' +
      'BAD_REQUEST for an unknown user, a time not in the future, a missing or empty channel topic.',
    args: {
      type: t.arg({ type: ScheduledMessageTypeEnum, required: true, description: 'Channel or direct message.' }),
      to: t.arg({
        type: ['Long'],
        required: true,
        description: 'CHANNEL: exactly one channel ID. DIRECT: the recipients\u2019 user IDs.',
      }),
      content: t.arg.string({ required: true, description: 'Markdown content.' }),
      topic: t.arg.string({ required: false, description: 'The topic; required for CHANNEL messages, ignored for DIRECT ones.' }),
      scheduledDeliveryTimestamp: t.arg({
        type: 'Long',
        required: true,
        description: 'When to send it, in UNIX seconds (UTC); must be in the future.',
      }),
      readBySender: t.arg.boolean({
        required: false,
        description: 'Mark the message read for the sender once sent (default: the server decides).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { scheduled_message_id } = await createScheduledMessage(ctx.connection, {
        type: REQUEST_TYPES[args.type],
        to: wireTo(args.type, args.to),
        content: args.content,
        topic: args.topic ?? undefined,
        scheduledDeliveryTimestamp: args.scheduledDeliveryTimestamp,
        readBySender: args.readBySender ?? undefined,
      });
      return { id: scheduled_message_id };
    },
  }),
  editScheduledMessage: t.field({
    extensions: reaches('update-scheduled-message'),
    type: EditScheduledMessagePayloadRef,
    description:
      'Edits a scheduled message; omitted arguments keep their value. Changing the type needs `to` (and ' +
      '`topic` for CHANNEL); a topic is ignored for direct messages; a failed message needs a new ' +
      'scheduledDeliveryTimestamp and becomes pending. Errors: STREAM_DOES_NOT_EXIST (extensions.stream_id), ' +
      'BAD_REQUEST for an unknown user or scheduled message. Needs feature level 184 (else UNSUPPORTED_BY_SERVER).',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The scheduled message to edit.' }),
      type: t.arg({ type: ScheduledMessageTypeEnum, required: false, description: 'A new type (then `to` is required).' }),
      to: t.arg({
        type: ['Long'],
        required: false,
        description: 'New recipients: one channel ID for a CHANNEL message, user IDs for a DIRECT one.',
      }),
      content: t.arg.string({ required: false, description: 'New Markdown content.' }),
      topic: t.arg.string({ required: false, description: 'New topic (CHANNEL messages only).' }),
      scheduledDeliveryTimestamp: t.arg({
        type: 'Long',
        required: false,
        description: 'New delivery time in UNIX seconds (UTC), in the future; required for a failed message.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.editScheduledMessage, 'Editing scheduled messages');
      let to: number | number[] | undefined;
      if (args.to != null) {
        // The wire form of `to` depends on the type; without a new type, the current one decides.
        const current = args.type ? null : await findScheduledMessage(ctx, args.id);
        const kind: Kind | undefined = args.type ?? (current ? (current.type === 'stream' ? 'CHANNEL' : 'DIRECT') : undefined);
        to = kind ? wireTo(kind, args.to) : args.to;
      }
      await updateScheduledMessage(ctx.connection, {
        scheduledMessageId: args.id,
        type: args.type ? REQUEST_TYPES[args.type] : undefined,
        to,
        content: args.content ?? undefined,
        topic: args.topic ?? undefined,
        scheduledDeliveryTimestamp: args.scheduledDeliveryTimestamp ?? undefined,
      });
      return { id: args.id };
    },
  }),
  deleteScheduledMessage: t.field({
    extensions: reaches('delete-scheduled-message'),
    type: DeleteScheduledMessagePayloadRef,
    description: 'Deletes (cancels) a scheduled message. An unknown ID fails with BAD_REQUEST.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The scheduled message to delete.' }),
    },
    resolve: async (_root, args, ctx) => {
      await deleteScheduledMessage(ctx.connection, { scheduledMessageId: args.id });
      return { id: args.id };
    },
  }),
}));
