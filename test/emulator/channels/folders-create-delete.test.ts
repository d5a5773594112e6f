/**
 * The emulator's channel folders, channel creation and topic deletion, driven through
 * src/zulip/routes/channels.ts: Zulip's permission rules and errors, the events, and the feature
 * levels below which the endpoints do not exist.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSettings } from '../../../src/emulator/context.js';
import {
  createChannel,
  createChannelFolder,
  deleteTopic,
  getChannelFolders,
  getStreamById,
  getStreamTopics,
  patchChannelFolders,
  updateChannelFolder,
} from '../../../src/zulip/routes/channels.js';
import { json } from '../../../src/zulip/params.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

function setup(settings: Partial<EmulatorSettings> = { featureLevel: 417 }) {
  const t = setupEmulator({ settings, eventTypes: ['channel_folder', 'stream', 'subscription', 'delete_message'] });
  return { ...t, iago: t.as('iago'), hamlet: t.as('hamlet') };
}

describe('channel folders', () => {
  it('creates, lists by order, renames, archives and reorders, with channel_folder events', async () => {
    const { iago, hamlet, listen, userId } = setup();
    const drain = await listen('hamlet');
    const { channel_folder_id: a } = await createChannelFolder(iago, { name: 'Frontend', description: 'UI **work**' });
    const { channel_folder_id: b } = await createChannelFolder(iago, { name: 'Backend', description: '' });
    const listed = (await getChannelFolders(hamlet)).channel_folders;
    expect(listed).toEqual([
      expect.objectContaining({ id: a, name: 'Frontend', rendered_description: '<p>UI <strong>work</strong></p>', creator_id: userId('iago'), is_archived: false, order: a }),
      expect.objectContaining({ id: b, name: 'Backend', order: b }),
    ]);

    await updateChannelFolder(iago, { channelFolderId: a, name: 'Web', isArchived: true });
    expect((await getChannelFolders(hamlet)).channel_folders.map((f) => f.id)).toEqual([b]);
    await patchChannelFolders(iago, { order: [b, a] });
    expect((await getChannelFolders(hamlet, { includeArchived: true })).channel_folders.map((f) => [f.name, f.order])).toEqual([
      ['Backend', 0],
      ['Web', 1],
    ]);
    expect((await drain()).map(({ id: _id, ...e }) => ({ type: e.type, op: e.op, ...('data' in e ? { data: e.data } : {}) }))).toEqual([
      { type: 'channel_folder', op: 'add' },
      { type: 'channel_folder', op: 'add' },
      { type: 'channel_folder', op: 'update', data: { name: 'Web' } },
      { type: 'channel_folder', op: 'update', data: { is_archived: true } },
    ]);
  });

  it('applies Zulip\u2019s rules: administrators only, unique printable names, no archiving a folder in use, a complete order', async () => {
    const { iago, hamlet } = setup();
    expect(await caughtApiError(createChannelFolder(hamlet, { name: 'X', description: '' }))).toMatchObject({
      code: 'UNAUTHORIZED_PRINCIPAL',
      message: 'Must be an organization administrator',
    });
    const { channel_folder_id: id } = await createChannelFolder(iago, { name: 'Frontend', description: '' });
    expect((await caughtApiError(createChannelFolder(iago, { name: 'frontend', description: '' }))).message).toBe("Channel folder 'frontend' already exists");
    expect((await caughtApiError(createChannelFolder(iago, { name: '  ', description: '' }))).message).toBe("Channel folder name can't be empty.");
    expect((await caughtApiError(createChannelFolder(iago, { name: 'x'.repeat(61), description: '' }))).message).toBe('name is too long (limit: 60 characters)');
    expect((await caughtApiError(updateChannelFolder(iago, { channelFolderId: 9999, name: 'Y' }))).message).toBe('Invalid channel folder ID');
    await createChannel(iago, { name: 'web', subscribers: [], folderId: id });
    expect((await caughtApiError(updateChannelFolder(iago, { channelFolderId: id, isArchived: true }))).message).toBe(
      'You need to remove all the channels from this folder to archive it.',
    );
    expect((await caughtApiError(patchChannelFolders(iago, { order: [] }))).message).toBe('Invalid order mapping.');
  });

  it('does not exist below feature level 389, and reordering not below 414 (404, like an unknown route)', async () => {
    const old = setup({ featureLevel: 388 });
    expect(await caughtApiError(getChannelFolders(old.hamlet))).toMatchObject({ httpStatus: 404 });
    const mid = setup({ featureLevel: 413 });
    const { channel_folder_id: id } = await createChannelFolder(mid.iago, { name: 'F', description: '' });
    expect((await getChannelFolders(mid.hamlet)).channel_folders[0]).not.toHaveProperty('order');
    expect(await caughtApiError(patchChannelFolders(mid.iago, { order: [id] }))).toMatchObject({ httpStatus: 404 });
  });
});

describe('create-channel', () => {
  it('creates a channel in a folder, subscribes the users given, and tells them', async () => {
    const { iago, hamlet, listen, userId, store } = setup();
    const drain = await listen('hamlet');
    const { channel_folder_id: folder } = await createChannelFolder(iago, { name: 'F', description: '' });
    const { id } = await createChannel(hamlet, { name: ' plans ', description: 'Line\none', subscribers: [userId('hamlet'), userId('cordelia')], folderId: folder });
    const { stream } = await getStreamById(hamlet, id);
    expect(stream).toMatchObject({ name: 'plans', description: 'Line one', creator_id: userId('hamlet'), invite_only: false, folder_id: folder });
    expect(store.subscriberIds(id).sort()).toEqual([userId('hamlet'), userId('cordelia')].sort());
    const events = await drain();
    expect(events.map((e) => `${e.type}/${String(e.op)}`)).toEqual(['channel_folder/add', 'stream/create', 'subscription/add']);
  });

  it('refuses a name in use (409 CHANNEL_ALREADY_EXISTS), guests, unknown users and unknown folders', async () => {
    const { hamlet, as } = setup();
    expect(await caughtApiError(createChannel(hamlet, { name: 'general', subscribers: [] }))).toMatchObject({
      code: 'CHANNEL_ALREADY_EXISTS',
      httpStatus: 409,
      message: "Channel 'general' already exists",
    });
    expect((await caughtApiError(createChannel(as('polonius'), { name: 'new', subscribers: [] }))).message).toBe('Not allowed for guest users');
    expect((await caughtApiError(createChannel(hamlet, { name: 'new', subscribers: [99999] }))).message).toBe('No such user');
    expect((await caughtApiError(createChannel(hamlet, { name: 'new', subscribers: [], folderId: 99999 }))).message).toBe('Invalid channel folder ID');
    expect((await caughtApiError(createChannel(hamlet, { name: 'new', subscribers: [], inviteOnly: true, isWebPublic: true }))).message).toBe('Invalid parameters');
  });

  it('does not exist below feature level 417', async () => {
    const { hamlet } = setup({ featureLevel: 416 });
    expect(await caughtApiError(createChannel(hamlet, { name: 'new', subscribers: [] }))).toMatchObject({ httpStatus: 404 });
  });
});

describe('delete-topic', () => {
  it('deletes the topic\u2019s messages (any case) for administrators, with one bulk delete_message event per listener', async () => {
    const { iago, hamlet, channelId, listen } = setup();
    const general = channelId('general');
    const drain = await listen('hamlet', ['delete_message'], { client_capabilities: json({ notification_settings_null: false, bulk_message_deletion: true }) });
    const before = (await getStreamTopics(hamlet, { streamId: general })).topics.map((t) => t.name);
    expect(before).toContain('greetings');
    expect(await deleteTopic(iago, { streamId: general, topicName: 'GREETINGS' })).toMatchObject({ complete: true });
    expect((await getStreamTopics(hamlet, { streamId: general })).topics.map((t) => t.name)).toEqual(before.filter((n) => n !== 'greetings'));
    const events = await drain();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'delete_message', message_type: 'stream', stream_id: general, topic: 'greetings' });
    expect((events[0]!.message_ids as number[]).length).toBeGreaterThan(0);
  });

  it('refuses non-administrators with UNAUTHORIZED_PRINCIPAL and channels the caller cannot read', async () => {
    const { hamlet, as, channelId } = setup();
    expect(await caughtApiError(deleteTopic(hamlet, { streamId: channelId('general'), topicName: 'greetings' }))).toMatchObject({
      code: 'UNAUTHORIZED_PRINCIPAL',
      message: 'Must be an organization administrator',
    });
    expect((await caughtApiError(deleteTopic(as('iago'), { streamId: 99999, topicName: 'x' }))).message).toBe('Invalid channel ID');
  });
});
