/**
 * Channel folders, channel creation and topic deletion end to end: GraphQL → gateway → REST →
 * emulator. The fields, their upstream calls, `Channel.folder` (one folder read for many channels),
 * bad input refused before any call, Zulip's error codes, and the feature-level gates.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = { emulatorSettings: { featureLevel: 417 } }) {
  const h = setupHarness(options);
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, calls };
}

const CREATE_FOLDER = /* GraphQL */ `
  mutation ($name: String!) { createChannelFolder(name: $name, description: "d") { channelFolderId channelFolder { zulipId name order isArchived creator { fullName } } } }
`;
const CREATE_CHANNEL = /* GraphQL */ `
  mutation ($name: String!, $subscriberIds: [Long!]!, $folderId: Long) {
    createChannel(name: $name, subscriberIds: $subscriberIds, folderId: $folderId) { zulipId name folderId folder { zulipId name } }
  }
`;

describe('channel folders', () => {
  it('creates folders, links channels to them with one folder read, reorders and archives', async () => {
    const { h, calls } = harness();
    const a = await h.gql<{ createChannelFolder: { channelFolderId: number; channelFolder: { name: string } } }>(CREATE_FOLDER, { name: 'Frontend' }, { as: IAGO });
    expect(a.errors).toBeUndefined();
    expect(a.data!.createChannelFolder.channelFolder).toEqual({ zulipId: a.data!.createChannelFolder.channelFolderId, name: 'Frontend', order: expect.any(Number), isArchived: false, creator: { fullName: 'Iago' } });
    const folderId = a.data!.createChannelFolder.channelFolderId;
    const b = await h.gql<{ createChannelFolder: { channelFolderId: number } }>(CREATE_FOLDER, { name: 'Backend' }, { as: IAGO });

    const created = await h.gql(CREATE_CHANNEL, { name: 'web', subscriberIds: [h.userId('iago')], folderId }, { as: IAGO });
    expect(created.errors).toBeUndefined();
    expect(created.data).toEqual({ createChannel: { zulipId: h.channelId('web'), name: 'web', folderId, folder: { zulipId: folderId, name: 'Frontend' } } });

    h.resetUpstreamRequests();
    const listed = await h.gql<{ channels: { name: string; folder: { name: string } | null }[] }>('{ channels(includeAll: true) { name folder { name } } }', {}, { as: IAGO });
    expect(listed.data!.channels.find((c) => c.name === 'web')!.folder).toEqual({ name: 'Frontend' });
    expect(listed.data!.channels.find((c) => c.name === 'general')!.folder).toBeNull();
    expect(calls().filter((c) => c === 'GET channel_folders')).toHaveLength(1);

    h.resetUpstreamRequests();
    const reordered = await h.gql('mutation ($order: [Long!]!) { reorderChannelFolders(order: $order) { name order } }', { order: [b.data!.createChannelFolder.channelFolderId, folderId] }, { as: IAGO });
    expect(reordered.data).toEqual({ reorderChannelFolders: [{ name: 'Backend', order: 0 }, { name: 'Frontend', order: 1 }] });
    expect(calls()).toEqual(['PATCH channel_folders', 'GET channel_folders']);

    const archived = await h.gql('mutation ($id: Long!) { updateChannelFolder(id: $id, isArchived: true) { channelFolderId } }', { id: b.data!.createChannelFolder.channelFolderId }, { as: IAGO });
    expect(archived.errors).toBeUndefined();
    const shown = await h.gql('{ channelFolders { name } all: channelFolders(includeArchived: true) { name } }', {}, { as: HAMLET });
    expect(shown.data).toEqual({ channelFolders: [{ name: 'Frontend' }], all: [{ name: 'Backend' }, { name: 'Frontend' }] });
  });

  it('passes on Zulip\u2019s errors with their codes and refuses bad input before any upstream call', async () => {
    const { h } = harness();
    const refused = await h.gql(CREATE_FOLDER, { name: 'X' }, { as: HAMLET });
    expect(refused.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL' } });
    const unknown = await h.gql('mutation { updateChannelFolder(id: 9999, name: "Y") { channelFolderId } }', {}, { as: IAGO });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Invalid channel folder ID', extensions: { code: 'BAD_REQUEST' } });
    h.resetUpstreamRequests();
    for (const query of [
      'mutation { createChannelFolder(name: "  ") { channelFolderId } }',
      'mutation { updateChannelFolder(id: 1) { channelFolderId } }',
      'mutation { reorderChannelFolders(order: [1, 1]) { id } }',
      'mutation { createChannel(name: " ", subscriberIds: []) { name } }',
    ]) {
      const { errors } = await h.gql(query, {}, { as: IAGO });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    expect(h.upstreamRequests).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below 389 (folders), 414 (reorder) and 417 (createChannel)', async () => {
    const { h, calls } = harness({ emulatorSettings: { featureLevel: 388 } });
    for (const query of [
      '{ channelFolders { name } }',
      'mutation { createChannelFolder(name: "F") { channelFolderId } }',
      'mutation { updateChannelFolder(id: 1, name: "G") { channelFolderId } }',
      'mutation { reorderChannelFolders(order: [1]) { id } }',
      'mutation { createChannel(name: "n", subscriberIds: []) { name } }',
    ]) {
      const { errors } = await h.gql(query, {}, { as: IAGO });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', featureLevel: 388 });
    }
    expect(calls()).toEqual(['GET server_settings']);
    const mid = harness({ emulatorSettings: { featureLevel: 416 } });
    // Reordering works from 414: with no folders yet, any order lists them all.
    expect(await mid.h.gql('mutation { reorderChannelFolders(order: [1]) { id } }', {}, { as: IAGO })).toMatchObject({ data: { reorderChannelFolders: [] } });
    const { errors } = await mid.h.gql('mutation { createChannel(name: "n", subscriberIds: []) { name } }', {}, { as: IAGO });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 417, featureLevel: 416 });
  });

  it('passes on CHANNEL_ALREADY_EXISTS for a name in use', async () => {
    const { h } = harness();
    const { errors } = await h.gql(CREATE_CHANNEL, { name: 'general', subscriberIds: [] }, { as: IAGO });
    expect(errors?.[0]).toMatchObject({ message: "Channel 'general' already exists", extensions: { code: 'CHANNEL_ALREADY_EXISTS', httpStatus: 409 } });
  });
});

describe('deleteTopic', () => {
  const DELETE = 'mutation ($channelId: Long!, $topic: String!) { deleteTopic(channelId: $channelId, topicName: $topic) { channelId topicName complete channel { name } } }';

  it('deletes a topic in one upstream call and says it is complete', async () => {
    const { h, calls } = harness({ emulatorSettings: {} });
    const general = h.channelId('general');
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql(DELETE, { channelId: general, topic: 'greetings' }, { as: IAGO });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ deleteTopic: { channelId: general, topicName: 'greetings', complete: true, channel: { name: 'general' } } });
    expect(calls().filter((c) => c.startsWith('POST'))).toEqual([`POST streams/${general}/delete_topic`]);
    expect([...h.emulator.store.messages.values()].some((m) => m.stream_id === general && m.topic === 'greetings')).toBe(false);
  });

  it('passes on UNAUTHORIZED_PRINCIPAL for a non-administrator', async () => {
    const { h } = harness({ emulatorSettings: {} });
    const { errors } = await h.gql(DELETE, { channelId: h.channelId('general'), topic: 'greetings' }, { as: HAMLET });
    expect(errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL' } });
  });
});
