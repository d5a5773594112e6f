/**
 * Drafts synchronized through the chat server (feature level 87): the `drafts` query and the
 * `createDrafts`, `editDraft` and `deleteDraft` mutations. While the user's
 * `enable_drafts_synchronization` setting is off, the server refuses all of them (BAD_REQUEST
 * "User has disabled synchronizing drafts.").
 * https://zulip.com/api/get-drafts
 */
import type { Draft, DraftData, DraftType } from '../../zulip/model/drafts.js';
import { createDrafts, deleteDraft, editDraft, getDrafts } from '../../zulip/routes/drafts.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { ChannelRef } from './channels/index.js';
import { asNode, fromList } from './node.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';

function requireDrafts(ctx: Context): Promise<void> {
  return requireFeatureLevel(ctx, featureLevels.drafts, 'The drafts API');
}

const WIRE_TYPES = { CHANNEL: 'stream', DIRECT: 'private', UNADDRESSED: '' } as const satisfies Record<string, DraftType>;
type DraftKind = keyof typeof WIRE_TYPES;

const DraftTypeEnum = builder.enumType('DraftType', {
  description: 'Who a draft is addressed to.',
  values: {
    CHANNEL: { description: 'A topic in a channel (`stream` on the wire).' },
    DIRECT: { description: 'One or more users, as a direct message (`private` on the wire).' },
    UNADDRESSED: { description: 'Nobody yet (the empty type on the wire).' },
  } as const,
});

function kindOf(type: DraftType): DraftKind {
  return type === 'stream' ? 'CHANNEL' : type === 'private' ? 'DIRECT' : 'UNADDRESSED';
}

export const DraftRef = builder.objectRef<Draft>('Draft');

DraftRef.implement({
  description:
    'A message being composed, stored on the chat server so that all of the user\u2019s clients see it. ' +
    'https://zulip.com/api/get-drafts',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The draft ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (d) => d.id }),
    type: t.field({ type: DraftTypeEnum, description: 'Who the draft is addressed to.', resolve: (d) => kindOf(d.type) }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel of a CHANNEL draft; null otherwise.',
      resolve: (d) => (d.type === 'stream' ? (d.to[0] ?? null) : null),
    }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel of a CHANNEL draft; null otherwise (or with an error when it is no longer visible).',
      resolve: (d, _args, ctx) => (d.type === 'stream' && d.to[0] !== undefined ? ctx.loaders.channel(d.to[0]) : null),
    }),
    recipientIds: t.field({
      type: ['Long'],
      description: 'User IDs of a DIRECT draft\u2019s recipients (without the caller, unless addressed to the caller alone); empty otherwise.',
      resolve: (d) => (d.type === 'private' ? d.to : []),
    }),
    recipients: t.field({
      type: [UserRef],
      nullable: true,
      description: 'The recipients of a DIRECT draft (see recipientIds); empty otherwise.',
      resolve: (d, _args, ctx) => (d.type === 'private' ? Promise.all(d.to.map((id) => ctx.loaders.user(id))) : []),
    }),
    topic: t.exposeString('topic', { description: 'The topic of a CHANNEL draft; empty for the other types.' }),
    content: t.exposeString('content', { description: 'The draft text (Markdown).' }),
    timestamp: t.field({ type: 'Long', description: 'When the draft was last edited, in UNIX seconds.', resolve: (d) => d.timestamp }),
  }),
});

interface DraftInputShape {
  type: DraftKind;
  to?: number[] | null;
  topic?: string | null;
  content: string;
  timestamp?: number | null;
}

const DraftInput = builder.inputRef<DraftInputShape>('DraftInput').implement({
  description: 'A draft to create, or the replacement for an existing one.',
  fields: (t) => ({
    type: t.field({ type: DraftTypeEnum, required: true, description: 'Who the draft is addressed to.' }),
    to: t.field({
      type: ['Long'],
      required: false,
      description: 'CHANNEL: exactly one channel ID. DIRECT: the recipients\u2019 user IDs. UNADDRESSED: omit (default []).',
    }),
    topic: t.string({ required: false, description: 'The topic of a CHANNEL draft; ignored for the other types (default "").' }),
    content: t.string({ required: true, description: 'The draft text (Markdown); must not be blank.' }),
    timestamp: t.field({
      type: 'Long',
      required: false,
      description: 'When it was last edited, in UNIX seconds (default: now, by the server\u2019s clock).',
    }),
  }),
});

function toWire(input: DraftInputShape): DraftData {
  const draft: DraftData = { type: WIRE_TYPES[input.type], to: input.to ?? [], topic: input.topic ?? '', content: input.content };
  if (input.timestamp != null) draft.timestamp = input.timestamp;
  return draft;
}

async function draftsById(ctx: Context): Promise<Map<number, Draft>> {
  const { drafts } = await getDrafts(ctx.connection);
  return new Map(drafts.map((d) => [d.id, d]));
}

const CreateDraftsPayloadRef = builder.objectRef<{ ids: number[] }>('CreateDraftsPayload').implement({
  description: 'Drafts that were created.',
  fields: (t) => ({
    ids: t.field({ type: ['Long'], description: 'The new drafts\u2019 IDs, in the order they were given.', resolve: (p) => p.ids }),
    drafts: t.field({
      type: [DraftRef],
      description:
        'The new drafts as the server stored them (fetched only when selected), in the order given; a draft ' +
        'deleted in the meantime is left out.',
      resolve: async (p, _args, ctx) => {
        if (p.ids.length === 0) return [];
        const byId = await draftsById(ctx);
        return p.ids.flatMap((id) => byId.get(id) ?? []);
      },
    }),
  }),
});

const EditDraftPayloadRef = builder.objectRef<{ id: number }>('EditDraftPayload').implement({
  description: 'A draft that was replaced.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The draft ID.', resolve: (p) => p.id }),
    draft: t.field({
      type: DraftRef,
      nullable: true,
      description: 'The draft as the server stored it (fetched only when selected); null if deleted in the meantime.',
      resolve: async (p, _args, ctx) => (await draftsById(ctx)).get(p.id) ?? null,
    }),
  }),
});

const DeleteDraftPayloadRef = builder.objectRef<{ id: number }>('DeleteDraftPayload').implement({
  description: 'A draft that was deleted.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The deleted draft\u2019s ID.', resolve: (p) => p.id }),
  }),
});

builder.queryField('drafts', (t) =>
  t.field({
    extensions: reaches('get-drafts'),
    type: [DraftRef],
    nullable: true,
    description:
      'The caller\u2019s drafts, most recently edited first. Needs feature level 87 (else UNSUPPORTED_BY_SERVER) ' +
      'and drafts synchronization turned on in the caller\u2019s settings (else BAD_REQUEST).',
    resolve: (_root, _args, ctx) => listDrafts(ctx),
  }),
);

async function listDrafts(ctx: Context): Promise<Draft[]> {
  await requireDrafts(ctx);
  return (await getDrafts(ctx.connection)).drafts;
}

asNode(DraftRef, { key: (d) => d.id, load: fromList(listDrafts, (d) => d.id, 'draft') });

builder.mutationFields((t) => ({
  createDrafts: t.field({
    extensions: reaches('create-drafts'),
    type: CreateDraftsPayloadRef,
    description:
      'Creates drafts, all or none: one invalid draft (e.g. a CHANNEL draft without exactly one channel ID, ' +
      'an unknown channel or user, a null byte) fails the whole call with BAD_REQUEST. Feature level 87.',
    args: {
      drafts: t.arg({ type: [DraftInput], required: true, description: 'The drafts to create.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireDrafts(ctx);
      const { ids } = await createDrafts(ctx.connection, { drafts: args.drafts.map(toWire) });
      return { ids };
    },
  }),
  editDraft: t.field({
    extensions: reaches('edit-draft'),
    type: EditDraftPayloadRef,
    description: 'Replaces a draft. An unknown ID fails with BAD_REQUEST ("Draft does not exist"). Feature level 87.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The draft to replace.' }),
      draft: t.arg({ type: DraftInput, required: true, description: 'The new contents (every field).' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireDrafts(ctx);
      await editDraft(ctx.connection, { draftId: args.id, draft: toWire(args.draft) });
      return { id: args.id };
    },
  }),
  deleteDraft: t.field({
    extensions: reaches('delete-draft'),
    type: DeleteDraftPayloadRef,
    description: 'Deletes a draft. An unknown ID fails with BAD_REQUEST ("Draft does not exist"). Feature level 87.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The draft to delete.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireDrafts(ctx);
      await deleteDraft(ctx.connection, { draftId: args.id });
      return { id: args.id };
    },
  }),
}));
