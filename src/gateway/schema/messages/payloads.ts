/**
 * What the message mutations return: payloads that fetch the message afterwards only when
 * selected (through the request's message loader, feature level 300).
 */
import type { DetachedUpload, UpdateMessageFlagsForNarrowResult } from '../../../zulip/model/messages.js';
import { builder } from '../../builder.js';
import { ChannelRef } from '../channels/index.js';
import { channelLookupCost } from '../../upstream/cost.js';
import { asNode, fromList } from '../node.js';
import { listAttachments } from '../uploads.js';
import { foundOrNull, MessageRef } from './message.js';
import { payloadIds } from '../payload-ids.js';

interface SentMessage {
  id: number;
  automatic_new_visibility_policy?: number;
}

export const SendMessagePayloadRef = builder.objectRef<SentMessage>('SendMessagePayload').implement({
  description: 'A message that was sent.',
  fields: (t) => ({
    ...payloadIds(t, 'messageId', 'new message'),
    message: t.field({
      zulip: { cost: { perBatch: 1 } },
      type: MessageRef,
      nullable: true,
      description: 'The new message (fetched only when selected; feature level 300).',
      resolve: (p, _args, ctx) => ctx.loaders.messages.load(p.id),
    }),
    automaticNewVisibilityPolicy: t.int({
      nullable: true,
      description:
        'When sending changed the sender\u2019s visibility policy for the topic (their settings can follow or unmute ' +
        'topics they post in): the new policy value (2 or 3, as `POST /user_topics` takes it).',
      resolve: (p) => p.automatic_new_visibility_policy ?? null,
    }),
  }),
});

export interface EditedMessage {
  messageId: number;
  detachedUploads: DetachedUpload[];
  baseUrl: string;
}

const DetachedUploadRef = builder.objectRef<DetachedUpload & { baseUrl: string }>('DetachedUpload').implement({
  description:
    'An uploaded file that the edit left unreferenced; clients should ask whether to delete it.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The attachment ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (u) => u.id }),
    name: t.exposeString('name', { description: 'The file name.' }),
    pathId: t.exposeString('path_id', { description: 'The path in the server\u2019s upload store.' }),
    url: t.string({
      description: 'Where the file is served (the server URL, /user_uploads/ and the path).',
      resolve: (u) => `${u.baseUrl}/user_uploads/${u.path_id}`,
    }),
    size: t.field({ type: 'Long', description: 'Size in bytes.', resolve: (u) => u.size }),
    createTime: t.field({ type: 'Long', description: 'When it was uploaded, in UNIX milliseconds.', resolve: (u) => u.create_time }),
    messageIds: t.field({
      type: ['Long'],
      description: 'Messages that still reference it (normally none).',
      resolve: (u) => u.messages.map((m) => m.id),
    }),
  }),
});

// Loaded again as the caller's attachment it still is (Zulip sends a detached upload as its attachment record).
asNode(DetachedUploadRef, {
  key: (u) => u.id,
  load: fromList(async (ctx) => (await listAttachments(ctx)).map((a) => ({ ...a, baseUrl: ctx.connection.baseUrl })), (u) => u.id, 'detached upload'),
});

export const EditMessagePayloadRef = builder.objectRef<EditedMessage>('EditMessagePayload').implement({
  description: 'A message that was edited or moved.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The target message.', resolve: (p) => p.messageId }),
    message: t.field({
      zulip: { cost: { perBatch: 1 } },
      type: MessageRef,
      nullable: true,
      description: 'The target message after the edit (fetched only when selected; feature level 300).',
      resolve: (p, _args, ctx) => ctx.loaders.messages.clear(p.messageId).load(p.messageId),
    }),
    detachedUploads: t.field({
      type: [DetachedUploadRef],
      description: 'Files whose only references the edit removed (empty from servers that do not report them).',
      resolve: (p) => p.detachedUploads.map((u) => ({ ...u, baseUrl: p.baseUrl })),
    }),
  }),
});

interface FlagsUpdated {
  messageIds: number[];
}

export const UpdateMessageFlagsPayloadRef = builder.objectRef<FlagsUpdated>('UpdateMessageFlagsPayload').implement({
  description: 'The result of changing a flag on messages by ID.',
  fields: (t) => ({
    messageIds: t.field({ type: ['Long'], description: 'The messages the request applied to.', resolve: (p) => p.messageIds }),
    messages: t.field({
      zulip: { cost: { perBatch: 1 } },
      type: [MessageRef],
      nullable: { list: false, items: true },
      description: 'Those messages, after the change (fetched only when selected; feature level 300).',
      resolve: async (p, _args, ctx) => {
        for (const id of p.messageIds) ctx.loaders.messages.clear(id);
        return foundOrNull(await ctx.loaders.messages.loadMany(p.messageIds));
      },
    }),
  }),
});

export const UpdateMessageFlagsForNarrowPayloadRef = builder
  .objectRef<UpdateMessageFlagsForNarrowResult>('UpdateMessageFlagsForNarrowPayload')
  .implement({
    description:
      'The result of changing a flag on a range of messages in a narrow. To cover a longer range, repeat from ' +
      '`lastProcessedId` (or `firstProcessedId`) until `foundNewest` (or `foundOldest`).',
    fields: (t) => ({
      processedCount: t.exposeInt('processed_count', { description: 'Messages in the range.' }),
      updatedCount: t.exposeInt('updated_count', { description: 'Messages whose flag changed.' }),
      firstProcessedId: t.field({
        type: 'Long',
        nullable: true,
        description: 'The oldest message in the range; null when the range was empty.',
        resolve: (r) => r.first_processed_id,
      }),
      lastProcessedId: t.field({
        type: 'Long',
        nullable: true,
        description: 'The newest message in the range; null when the range was empty.',
        resolve: (r) => r.last_processed_id,
      }),
      foundOldest: t.exposeBoolean('found_oldest', { description: 'The range reached the oldest matching message.' }),
      foundNewest: t.exposeBoolean('found_newest', { description: 'The range reached the newest matching message.' }),
      ignoredBecauseNotSubscribedChannelIds: t.field({
        type: ['Long'],
        description: 'When removing READ: channels skipped because the caller is not subscribed (feature level 355).',
        resolve: (r) => r.ignored_because_not_subscribed_channels ?? [],
      }),
      ignoredBecauseNotSubscribedChannels: t.field({
        zulip: { cost: channelLookupCost },
        type: [ChannelRef],
        nullable: { list: false, items: true },
        description: 'The same channels (null for any the caller can no longer see).',
        resolve: async (r, _args, ctx) =>
          foundOrNull(await ctx.loaders.channels.loadMany(r.ignored_because_not_subscribed_channels ?? [])),
      }),
    }),
  });
