/**
 * Channel folders (Zulip 11.0, feature level 389): the `ChannelFolder` type, `Channel.folder`, the
 * `channelFolders` query and the `createChannelFolder`, `updateChannelFolder` and
 * `reorderChannelFolders` (feature level 414) mutations. Changing folders needs an organization
 * administrator (UNAUTHORIZED_PRINCIPAL otherwise, as Zulip answers).
 * https://zulip.com/api/get-channel-folders
 */
import type { Channel, ChannelFolder } from '../../../zulip/model/channels.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { createChannelFolder, getChannelFolders, patchChannelFolders, updateChannelFolder } from '../../../zulip/routes/channels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../../upstream/feature-level.js';
import { memoKey } from '../../loaders/index.js';
import { reaches } from '../../zulip-operations.js';
import { ChannelRef } from './index.js';
import { asNode, fromList } from '../node.js';
import { UserRef, userOrNull } from '../users.js';

/** Every folder of the organization (archived ones too), fetched once per request. */
const allFolders = memoKey<ChannelFolder[]>('channelFolders');

function loadFolders(ctx: Context, fresh = false): Promise<ChannelFolder[]> {
  return ctx.loaders.memo.get(allFolders, async () => (await getChannelFolders(ctx.connection, { includeArchived: true })).channel_folders, fresh);
}

async function folderById(ctx: Context, id: number, fresh = false): Promise<ChannelFolder | null> {
  return (await loadFolders(ctx, fresh)).find((f) => f.id === id) ?? null;
}

const requireFolders = (ctx: Context, level: number = featureLevels.channelFolders, what = 'Channel folders'): Promise<void> =>
  requireFeatureLevel(ctx, level, what);

export const ChannelFolderRef = builder.objectRef<ChannelFolder>('ChannelFolder').implement({
  description: 'A channel folder: a named group of channels the organization\u2019s administrators arrange. https://zulip.com/help/channel-folders',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The channel folder ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (f) => f.id }),
    name: t.exposeString('name', { description: 'The folder name.' }),
    description: t.exposeString('description', { description: 'The description, as Markdown (may be empty).' }),
    renderedDescription: t.exposeString('rendered_description', { description: 'The description, as HTML.' }),
    isArchived: t.exposeBoolean('is_archived', { description: 'Whether the folder is archived.' }),
    order: t.int({
      nullable: true,
      description: 'Display position, 0-based: lower first. Null before feature level 414, where folders are shown by ID.',
      resolve: (f) => f.order ?? null,
    }),
    dateCreated: t.field({ type: 'Long', nullable: true, description: 'When the folder was created, in UNIX seconds; null when not recorded.', resolve: (f) => f.date_created }),
    creatorId: t.field({ type: 'Long', nullable: true, description: 'Who created the folder; null when not recorded.', resolve: (f) => f.creator_id }),
    creator: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who created the folder; null when not recorded or not visible to the caller.',
      resolve: (f, _args, ctx) => (f.creator_id == null ? null : userOrNull(ctx, f.creator_id)),
    }),
  }),
});

// Any folder, archived ones included, as `channelFolders(includeArchived: true)` lists them.
asNode(ChannelFolderRef, {
  key: (f) => f.id,
  load: fromList(async (ctx) => (await requireFolders(ctx), loadFolders(ctx)), (f) => f.id, 'channel folder'),
});

builder.objectFields(ChannelRef, (t) => ({
  folderId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel folder the channel is in; null when none, and on servers before feature level 389.',
    resolve: (c: Channel) => c.folder_id ?? null,
  }),
  folder: t.field({
    type: ChannelFolderRef,
    nullable: true,
    description:
      'The channel folder the channel is in; null when none (and before feature level 389). The folders are read ' +
      'once per request (one upstream request for any number of channels).',
    resolve: (c: Channel, _args, ctx) => (c.folder_id == null ? null : folderById(ctx, c.folder_id)),
  }),
}));

builder.queryField('channelFolders', (t) =>
  t.field({
    extensions: reaches('get-channel-folders'),
    type: [ChannelFolderRef],
    nullable: true,
    description: 'The organization\u2019s channel folders, in display order (by ID before feature level 414). Feature level 389.',
    args: {
      includeArchived: t.arg.boolean({ required: false, defaultValue: false, description: 'Include archived folders.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireFolders(ctx);
      const folders = await loadFolders(ctx);
      const shown = args.includeArchived ? folders : folders.filter((f) => !f.is_archived);
      // The server sorts by `order` from feature level 414; keep that order, else sort by ID.
      return (await getFeatureLevel(ctx)) >= featureLevels.reorderChannelFolders ? shown : [...shown].sort((a, b) => a.id - b.id);
    },
  }),
);

/** A payload carrying the ID of the folder a mutation created or changed, and the folder itself. */
const ChannelFolderPayloadRef = builder.objectRef<{ id: number }>('ChannelFolderPayload').implement({
  description: 'A channel folder that was created or changed.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The channel folder ID.', resolve: (p) => p.id }),
    channelFolder: t.field({
      type: ChannelFolderRef,
      nullable: true,
      description: 'The folder as the server now has it (fetched only when selected).',
      resolve: (p, _args, ctx) => folderById(ctx, p.id, true),
    }),
  }),
});

/** Refuses a blank name before any upstream call (Zulip: "Channel folder name can't be empty."). */
function checkName(field: string, name: string | null | undefined): void {
  if (name != null && name.trim() === '') throw badInput(`${field}: \`name\` must not be blank.`, { argument: 'name' });
}

builder.mutationFields((t) => ({
  createChannelFolder: t.field({
    extensions: reaches('create-channel-folder'),
    type: ChannelFolderPayloadRef,
    description:
      'Creates a channel folder, placed last (organization administrators; feature level 389). A name another folder ' +
      'has (case-insensitively) fails with BAD_REQUEST "Channel folder \u2018\u2026\u2019 already exists".',
    args: {
      name: t.arg.string({ required: true, description: 'The folder name (not blank; at most 60 characters).' }),
      description: t.arg.string({ required: false, defaultValue: '', description: 'The description, as Markdown (at most 1024 characters).' }),
    },
    resolve: async (_root, args, ctx) => {
      checkName('createChannelFolder', args.name);
      await requireFolders(ctx);
      const { channel_folder_id } = await createChannelFolder(ctx.connection, { name: args.name, description: args.description ?? '' });
      return { id: channel_folder_id };
    },
  }),
  updateChannelFolder: t.field({
    extensions: reaches('update-channel-folder'),
    type: ChannelFolderPayloadRef,
    description:
      'Renames, describes, archives or unarchives a channel folder (organization administrators; feature level 389). ' +
      'Only the arguments given change; at least one is needed (else BAD_USER_INPUT). A folder that still holds ' +
      'channels cannot be archived (BAD_REQUEST); an unknown ID fails with BAD_REQUEST "Invalid channel folder ID".',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The channel folder.' }),
      name: t.arg.string({ required: false, description: 'The new name (not blank).' }),
      description: t.arg.string({ required: false, description: 'The new description, as Markdown.' }),
      isArchived: t.arg.boolean({ required: false, description: 'Archive (true) or unarchive (false) the folder.' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.name == null && args.description == null && args.isArchived == null) {
        throw badInput('updateChannelFolder: give a name, a description or isArchived.');
      }
      checkName('updateChannelFolder', args.name);
      await requireFolders(ctx);
      await updateChannelFolder(ctx.connection, {
        channelFolderId: args.id,
        name: args.name ?? undefined,
        description: args.description ?? undefined,
        isArchived: args.isArchived ?? undefined,
      });
      return { id: args.id };
    },
  }),
  reorderChannelFolders: t.field({
    extensions: reaches('patch-channel-folders'),
    type: [ChannelFolderRef],
    description:
      'Sets the display order of the channel folders (organization administrators; feature level 414). `order` must ' +
      'list every folder, archived ones included (else BAD_REQUEST "Invalid order mapping."). Returns every folder in ' +
      'the new order.',
    args: {
      order: t.arg({ type: ['Long'], required: true, description: 'Every channel folder ID, in the new order (no repeats).' }),
    },
    resolve: async (_root, args, ctx) => {
      if (new Set(args.order).size !== args.order.length) throw badInput('reorderChannelFolders: `order` repeats a folder.', { argument: 'order' });
      await requireFolders(ctx, featureLevels.reorderChannelFolders, 'Reordering channel folders');
      await patchChannelFolders(ctx.connection, { order: args.order });
      return loadFolders(ctx, true);
    },
  }),
}));
