/**
 * Channel folders (Zulip 11.0, feature level 389): `GET /channel_folders`
 * (https://zulip.com/api/get-channel-folders), `POST /channel_folders/create`
 * (https://zulip.com/api/create-channel-folder), `PATCH /channel_folders/{id}`
 * (https://zulip.com/api/update-channel-folder) and, from feature level 414, `PATCH /channel_folders`
 * (https://zulip.com/api/patch-channel-folders), with the `channel_folder` add/update events and
 * the `channel_folders` register state.
 *
 * As in Zulip (zerver/views/channel_folders.py, zerver/lib/channel_folders.py): only organization
 * administrators change folders; a name may not be blank, hold unprintable characters, or repeat
 * another folder's (case-insensitively, archived ones included); a folder still holding channels
 * cannot be archived; a reorder must list every folder. Below the feature level the endpoints
 * answer 404 "Not Found", like an unknown route.
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { ChannelFolder } from '../../../zulip/model/channels.js';
import { activeUserIds, requireRealmAdmin } from '../../admin.js';
import type { EmulatorSettings, RouteContext, StateContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { checkNoNullBytes } from '../../http.js';
import { renderDescription } from '../../markdown.js';
import type { Store } from '../../store.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';

/** Zulip's ChannelFolder.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH. */
const MAX_NAME_LENGTH = 60;
const MAX_DESCRIPTION_LENGTH = 1024;

type FolderRecord = ChannelFolder & { order: number };


function serialize(settings: EmulatorSettings, folder: FolderRecord): ChannelFolder {
  const { order, ...rest } = folder;
  // TODO(server-11): reorderChannelFolders (414); drop the older branch once every supported server has it.
  return settings.featureLevel >= featureLevels.reorderChannelFolders ? { ...rest, order } : rest;
}

/** The folders as `GET /channel_folders` lists them: by `order` from feature level 414, by ID before. */
export function foldersOf(store: Store, settings: EmulatorSettings, includeArchived: boolean): ChannelFolder[] {
  // TODO(server-11): reorderChannelFolders (414); drop the older branch once every supported server has it.
  const byOrder = settings.featureLevel >= featureLevels.reorderChannelFolders;
  return [...store.channelFolders.values()]
    .filter((f) => includeArchived || !f.is_archived)
    .sort((a, b) => (byOrder ? a.order - b.order || a.id - b.id : a.id - b.id))
    .map((f) => serialize(settings, f));
}

/** A folder of the organization, or BAD_REQUEST "Invalid channel folder ID" (Zulip's get_channel_folder_by_id). */
export function accessFolder(store: Store, folderId: number): FolderRecord {
  const folder = store.channelFolders.get(folderId);
  if (!folder) throw badRequest('Invalid channel folder ID');
  return folder;
}

/** A name or description within Zulip's StringConstraints(max_length=...). */
function limited(name: 'name' | 'description', value: string | undefined, limit: number): string | undefined {
  if (value === undefined) return undefined;
  checkNoNullBytes(name, value);
  if ([...value].length > limit) throw badRequest(`${name} is too long (limit: ${limit} characters)`);
  return value;
}

/** Zulip's check_channel_folder_name. */
function checkFolderName(store: Store, name: string): void {
  if (name.trim() === '') throw badRequest("Channel folder name can't be empty.");
  const bad = [...name].findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in channel folder name, at position ${bad + 1}.`);
  const lower = name.toLowerCase();
  if ([...store.channelFolders.values()].some((f) => f.name.toLowerCase() === lower)) {
    throw badRequest(`Channel folder '${name}' already exists`);
  }
}

function notifyUpdate(ctx: RouteContext, folder: FolderRecord, data: Record<string, unknown>): void {
  ctx.events.notify(activeUserIds(ctx.store), { type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data });
}

function getChannelFolders(ctx: RouteContext) {
  const includeArchived = ctx.params.optJson<unknown>('include_archived') ?? false;
  if (typeof includeArchived !== 'boolean') throw badRequest('include_archived is not a boolean');
  return { channel_folders: foldersOf(ctx.store, ctx.settings, includeArchived) };
}

function createChannelFolder(ctx: RouteContext) {
  requireRealmAdmin(ctx);
  const description = limited('description', ctx.params.str('description'), MAX_DESCRIPTION_LENGTH)!;
  const name = limited('name', ctx.params.str('name'), MAX_NAME_LENGTH)!;
  checkFolderName(ctx.store, name);
  const id = ctx.store.nextId('channel_folder');
  const folder: FolderRecord = {
    id,
    name,
    description,
    rendered_description: renderDescription(description),
    creator_id: ctx.user.user_id,
    date_created: Math.floor(ctx.nowSeconds()),
    is_archived: false,
    // Zulip places a new folder last: its order is its ID.
    order: id,
  };
  ctx.store.channelFolders.set(id, folder);
  ctx.events.notify(activeUserIds(ctx.store), { type: 'channel_folder', op: 'add', channel_folder: serialize(ctx.settings, folder) });
  return { channel_folder_id: id };
}

function updateChannelFolder(ctx: RouteContext) {
  requireRealmAdmin(ctx);
  const description = limited('description', ctx.params.optStr('description'), MAX_DESCRIPTION_LENGTH);
  const isArchived = ctx.params.optBool('is_archived');
  const name = limited('name', ctx.params.optStr('name'), MAX_NAME_LENGTH);
  const folder = accessFolder(ctx.store, ctx.pathInt('channel_folder_id'));
  // Each change is checked and applied in turn, as update_channel_folder does.
  if (name !== undefined && name !== folder.name) {
    checkFolderName(ctx.store, name);
    folder.name = name;
    notifyUpdate(ctx, folder, { name });
  }
  if (description !== undefined && description !== folder.description) {
    folder.description = description;
    folder.rendered_description = renderDescription(description);
    notifyUpdate(ctx, folder, { description, rendered_description: folder.rendered_description });
  }
  if (isArchived !== undefined && isArchived !== folder.is_archived) {
    const inUse = [...ctx.store.channels.values()].some((c) => c.folder_id === folder.id && !c.is_archived);
    if (isArchived && inUse) throw badRequest('You need to remove all the channels from this folder to archive it.');
    folder.is_archived = isArchived;
    notifyUpdate(ctx, folder, { is_archived: isArchived });
  }
  return {};
}

function patchChannelFolders(ctx: RouteContext) {
  requireRealmAdmin(ctx);
  const order = ctx.params.intArray('order');
  const position = new Map(order.map((id, i) => [id, i]));
  const folders = [...ctx.store.channelFolders.values()];
  if (folders.some((f) => !position.has(f.id))) throw badRequest('Invalid order mapping.');
  for (const folder of folders) folder.order = position.get(folder.id)!;
  return {};
}

/** The `channel_folders` register key (feature level 389): every folder, archived ones included. */
export function folderState(ctx: StateContext): Record<string, unknown> {
  // TODO(server-11): channelFolders (389); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel < featureLevels.channelFolders || !ctx.wants('channel_folders')) return {};
  return { channel_folders: foldersOf(ctx.store, ctx.settings, true) };
}

export const folderRoutes = [
  { operation: ops.getChannelFolders, handler: getChannelFolders },
  { operation: ops.createChannelFolder, handler: createChannelFolder },
  { operation: ops.patchChannelFolders, handler: patchChannelFolders },
  { operation: ops.updateChannelFolder, handler: updateChannelFolder },
] as const;
