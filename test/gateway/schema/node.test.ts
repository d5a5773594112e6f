/**
 * Relay's global object identification (src/gateway/schema/node.ts, global-ids.ts), end to end
 * against the emulator: every Node type's `id`, as its own query field gives it, loads the same
 * record again through `node(id:)`; `nodes(ids:)` mixes types; ids the API did not issue are refused
 * before any upstream call; and `node` shows a guest nothing its own query fields would not.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { isObjectType } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { buildSchema } from '../../../src/gateway/schema/index.js';
import { createHarness, type Harness } from '../../helpers/harness.js';
import { postMultipart, testBytes } from '../../helpers/uploads.js';

const HAMLET = { as: demoUser('hamlet').email };
const IAGO = { as: demoUser('iago').email };
const POLONIUS = { as: demoUser('polonius').email }; // a guest, not subscribed to the private "engineering"

type Data = Record<string, unknown>;
type Found = { id: string; [key: string]: unknown };

/** Per Node type: a query field that lists it (as `HAMLET`), and the record to take. */
interface Row {
  type: string;
  /** The key fields selected both in the list and through `node` (besides `id`). */
  fields: string;
  query: string;
  variables?: (h: Harness) => Data | Promise<Data>;
  pick: (data: Data) => Found;
  /** Who lists and loads it, for types only administrators see. @default HAMLET */
  as?: { as: string };
}

const first = (list: unknown): Found => (list as Found[])[0]!;

const ROWS: Row[] = [
  { type: 'User', fields: 'zulipId fullName', query: '{ users { id zulipId fullName } }', pick: (d) => first(d.users) },
  { type: 'Me', fields: 'zulipId', query: '{ me { id zulipId } }', pick: (d) => d.me as Found },
  // Without a session, the request's one account is its Basic credential's (accounts.ts).
  { type: 'Account', fields: 'email', query: '{ accounts { id email } }', pick: (d) => first(d.accounts) },
  { type: 'Channel', fields: 'zulipId name', query: '{ channels { id zulipId name } }', pick: (d) => first(d.channels) },
  {
    type: 'Topic',
    fields: 'name channelId maxId',
    query: 'query ($c: Long!) { topics(channelId: $c) { id name channelId maxId } }',
    variables: (h) => ({ c: h.channelId('general') }),
    pick: (d) => first(d.topics),
  },
  { type: 'Message', fields: 'zulipId topic', query: '{ messages(last: 1) { nodes { id zulipId topic } } }', pick: (d) => first((d.messages as Data).nodes) },
  { type: 'UserGroup', fields: 'zulipId name', query: '{ userGroups { id zulipId name } }', pick: (d) => first(d.userGroups) },
  { type: 'Draft', fields: 'zulipId content', query: '{ drafts { id zulipId content } }', pick: (d) => first(d.drafts) },
  { type: 'ScheduledMessage', fields: 'zulipId content', query: '{ scheduledMessages { id zulipId content } }', pick: (d) => first(d.scheduledMessages) },
  { type: 'SavedSnippet', fields: 'zulipId title', query: '{ savedSnippets { id zulipId title } }', pick: (d) => first(d.savedSnippets) },
  { type: 'Linkifier', fields: 'zulipId pattern', query: '{ linkifiers { id zulipId pattern } }', pick: (d) => first(d.linkifiers) },
  { type: 'CodePlayground', fields: 'zulipId name', query: '{ codePlaygrounds { id zulipId name } }', pick: (d) => first(d.codePlaygrounds) },
  { type: 'CustomEmoji', fields: 'zulipId name', query: '{ customEmoji { id zulipId name } }', pick: (d) => first(d.customEmoji) },
  { type: 'NavigationView', fields: 'fragment name', query: '{ navigationViews { id fragment name } }', pick: (d) => first(d.navigationViews) },
  // issue 17 (api-invites): two tables, two Node types.
  {
    type: 'EmailInvitation',
    fields: 'zulipId email',
    query: '{ invitations { id ... on EmailInvitation { zulipId email } } }',
    pick: (d) => (d.invitations as Found[]).find((i) => 'email' in i)!,
  },
  {
    type: 'InvitationLink',
    fields: 'zulipId url',
    query: '{ invitations { id ... on InvitationLink { zulipId url } } }',
    pick: (d) => (d.invitations as Found[]).find((i) => 'url' in i)!,
  },
  { type: 'RealmExport', fields: 'zulipId pending', query: '{ realmExports { id zulipId pending } }', pick: (d) => first(d.realmExports), as: IAGO },
  { type: 'Reminder', fields: 'zulipId targetMessageId', query: '{ reminders { id zulipId targetMessageId } }', pick: (d) => first(d.reminders) },
  { type: 'ChannelFolder', fields: 'zulipId name', query: '{ channelFolders { id zulipId name } }', pick: (d) => first(d.channelFolders) },
  { type: 'CustomProfileField', fields: 'zulipId name', query: '{ customProfileFields { id zulipId name } }', pick: (d) => first(d.customProfileFields) },
  {
    // Two fields each have an option "0": the global id tells them apart.
    type: 'CustomProfileFieldOption',
    fields: 'fieldId optionId text',
    query: '{ customProfileFields { options { id fieldId optionId text } } }',
    pick: (d) => (d.customProfileFields as { options: Found[] }[]).flatMap((f) => f.options).at(-1)!,
  },
  { type: 'Attachment', fields: 'zulipId name', query: '{ attachments { attachments { id zulipId name } } }', pick: (d) => first((d.attachments as Data).attachments) },
  {
    // Only an edit reports one: each listing unlinks a fresh upload from a message of its own.
    type: 'DetachedUpload',
    fields: 'zulipId name',
    query: /* GraphQL */ `
      mutation ($m: Long!) {
        editMessage(messageId: $m, content: "unlinked") { ... on EditMessagePayload { detachedUploads { id zulipId name } } }
      }
    `,
    variables: async (h) => ({ m: await messageLinkingAnUpload(h) }),
    pick: (d) => first((d.editMessage as Data).detachedUploads),
  },
];

/** A message of Hamlet's that links a file he just uploaded; its ID. */
async function messageLinkingAnUpload(h: Harness): Promise<number> {
  const upload = await postMultipart(h.url, 'mutation($file: Upload!) { uploadFile(file: $file) { path filename } }', { bytes: testBytes(10), name: 'n.txt', type: 'text/plain' }, { as: demoUser('hamlet') });
  expect(upload.errors).toBeUndefined();
  const file = upload.data!.uploadFile as { path: string; filename: string };
  const sent = await h.gql<{ sendMessage: { messageId: number } }>('mutation($m: String!) { sendMessage(channelName: "general", topic: "files", content: $m) { messageId } }', { m: `[${file.filename}](${file.path})` }, HAMLET);
  expect(sent.errors).toBeUndefined();
  return sent.data!.sendMessage.messageId;
}

/** Records the seed lacks, made through the API as a client would. */
async function seedRecords(h: Harness): Promise<void> {
  // Members may create invitation links where the organization lets them (administrators by default).
  h.emulator.store.realm.settings.can_create_multiuse_invite_group = h.emulator.store.systemGroupId('role:members');
  const made = [
    await h.gql('mutation { createSavedSnippet(title: "Hi", content: "Hello!") { savedSnippetId } }', {}, HAMLET),
    await h.gql('mutation { addLinkifier(pattern: "#(?P<id>[0-9]+)", urlTemplate: "https://example.com/{id}") { linkifier { zulipId } } }', {}, IAGO),
    await h.gql('mutation { addCodePlayground(name: "Py", pygmentsLanguage: "Python", urlTemplate: "https://py.example.com?c={code}") { codePlayground { zulipId } } }', {}, IAGO),
    await h.gql('mutation { addNavigationView(fragment: "narrow/is/alerted", isPinned: true, name: "Alerts") { fragment } }', {}, HAMLET),
    await h.gql('mutation { sendInvitations(emails: ["ann@example.com"], channelIds: []) { emails } }', {}, HAMLET),
    await h.gql('mutation { createInvitationLink { url } }', {}, HAMLET),
    await h.gql('mutation { exportRealm { zulipId } }', {}, IAGO),
    await h.gql('mutation { createChannelFolder(name: "Frontend") { channelFolderId } }', {}, IAGO),
    ...(await Promise.all(['Team', 'Shift'].map((name) => h.gql('mutation ($name: String!, $data: JSON) { createCustomProfileField(name: $name, type: SELECT, fieldData: $data) { fieldId } }', { name, data: { 0: { text: `${name} A`, order: '1' } } }, IAGO)))),
    await h.gql(
      'mutation ($m: Long!, $at: Long!) { createMessageReminder(messageId: $m, scheduledDeliveryTimestamp: $at) { reminderId } }',
      { m: await messageLinkingAnUpload(h), at: Math.floor(Date.now() / 1000) + 3600 },
      HAMLET,
    ),
  ];
  for (const result of made) expect(result.errors).toBeUndefined();
  h.emulator.store.customEmoji.set(7, { id: 7, name: 'octopus', file_name: '7.png', still_file_name: null, deactivated: false, author_id: h.userId('hamlet') });
}

describe('node(id:)', () => {
  // Navigation views need feature level 390, listing reminders 399.
  const h = createHarness({ emulatorSettings: { featureLevel: 399 } });
  afterAll(() => h.close());
  let seeded: Promise<void> | undefined;
  const ready = () => (seeded ??= seedRecords(h));

  it('covers every type that implements Node', () => {
    const nodeTypes = Object.values(buildSchema().getTypeMap())
      .filter((t) => isObjectType(t) && t.getInterfaces().some((i) => i.name === 'Node'))
      .map((t) => t.name);
    // Submessage is a Node too; the demo seed has no widget message, so it is covered below by id shape only.
    expect(nodeTypes.sort()).toEqual([...ROWS.map((r) => r.type), 'Submessage'].sort());
  });

  it.each(ROWS)('round-trips a $type: node(id) is the record its own query field listed', async (row) => {
    await ready();
    const listed = await h.gql<Data>(row.query, (await row.variables?.(h)) ?? {}, row.as ?? HAMLET);
    expect(listed.errors).toBeUndefined();
    const record = row.pick(listed.data!);
    expect(typeof record.id).toBe('string');
    const { data, errors } = await h.gql<{ node: Found & { __typename: string } }>(
      `query ($id: ID!) { node(id: $id) { __typename id ... on ${row.type} { ${row.fields} } } }`,
      { id: record.id },
      row.as ?? HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.node).toEqual({ __typename: row.type, ...record });
  });

  it('gives every record its own id: unique across the types, never Zulip\u2019s number', async () => {
    await ready();
    const ids: string[] = [];
    for (const row of ROWS) {
      const listed = await h.gql<Data>(row.query, (await row.variables?.(h)) ?? {}, row.as ?? HAMLET);
      ids.push(row.pick(listed.data!).id);
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).not.toMatch(/^\d+$/);
  });

  it('loads a warm user and channel through the live directory with no upstream call', async () => {
    const ids = await h.gql<{ user: Found; channel: Found }>(
      'query ($u: Long!, $c: Long!) { user(id: $u) { id } channel(id: $c) { id } }',
      { u: h.userId('othello'), c: h.channelId('general') },
      HAMLET,
    );
    // Whatever the plain lookups cost warm, node costs the same: nothing more.
    h.resetUpstreamRequests();
    const plain = await h.gql('query ($u: Long!, $c: Long!) { user(id: $u) { fullName } channel(id: $c) { name } }', { u: h.userId('othello'), c: h.channelId('general') }, HAMLET);
    const plainCalls = h.upstreamRequests.length;
    expect(plain.errors).toBeUndefined();
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ nodes: Data[] }>(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { ... on User { fullName } ... on Channel { name } } }',
      { ids: [ids.data!.user.id, ids.data!.channel.id] },
      HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.nodes).toEqual([{ fullName: 'Othello, the Moor of Venice' }, { name: 'general' }]);
    expect(h.upstreamRequests.length).toBe(plainCalls);
  });
});

describe('nodes(ids:)', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('answers mixed types in order, with null and its own error for one that is not found', async () => {
    const ids = {
      user: encodeGlobalID('User', h.userId('hamlet')),
      channel: encodeGlobalID('Channel', h.channelId('design')),
      missing: encodeGlobalID('User', 99999),
      group: encodeGlobalID('UserGroup', h.emulator.store.groupByName('role:members')!.id),
    };
    const { data, errors } = await h.gql<{ nodes: (Data | null)[] }>(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id
        ... on User { zulipId } ... on Channel { zulipId name } ... on UserGroup { name } } }`,
      { ids: [ids.channel, ids.missing, ids.user, ids.group, ids.user] },
      HAMLET,
    );
    const hamlet = { __typename: 'User', id: ids.user, zulipId: h.userId('hamlet') };
    expect(data!.nodes).toEqual([
      { __typename: 'Channel', id: ids.channel, zulipId: h.channelId('design'), name: 'design' },
      null,
      hamlet,
      { __typename: 'UserGroup', id: ids.group, name: 'role:members' },
      hamlet,
    ]);
    expect(errors!.map((e) => [e.path!.join('.'), e.extensions?.code])).toEqual([['nodes.1', 'NOT_FOUND']]);
  });
});

describe('ids the API did not issue', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it.each([
    ['not base64', '!!!'],
    ['no key', Buffer.from('User').toString('base64')],
    ['a type that does not exist', encodeGlobalID('Ticket', 1)],
    ['a type without identity', encodeGlobalID('Query', 1)],
    ['a value type', encodeGlobalID('Reaction', 1)],
    ['a key that is not an integer', encodeGlobalID('User', 'hamlet')],
    ['a key beyond a safe integer', encodeGlobalID('Message', '99999999999999999')],
    ['a Topic key without a channel', encodeGlobalID('Topic', 'plans')],
    ['a bare Zulip id', String(1)],
  ])('refuses %s with INVALID_GLOBAL_ID and no upstream call', async (_what, id) => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ node: unknown }>('query ($id: ID!) { node(id: $id) { id } }', { id }, HAMLET);
    expect(data?.node ?? null).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors![0]!.extensions?.code).toBe('INVALID_GLOBAL_ID');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses the whole of nodes(ids:) when one id is forged, before any upstream call', async () => {
    h.resetUpstreamRequests();
    const { errors } = await h.gql(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [encodeGlobalID('User', h.userId('hamlet')), encodeGlobalID('ServerSettings', 1)] },
      HAMLET,
    );
    expect(errors!.map((e) => e.extensions?.code)).toEqual(['INVALID_GLOBAL_ID']);
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('node and visibility', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('shows a guest through node exactly what its own query fields show: not a private channel or its messages', async () => {
    const engineering = h.channelId('engineering');
    const messageId = [...h.emulator.store.messages.values()].find((m) => m.stream_id === engineering)!.id;
    const ids = [encodeGlobalID('Channel', engineering), encodeGlobalID('Message', messageId)];
    const QUERY = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Channel { name } ... on Message { zulipId } } }';

    const asIago = await h.gql<{ nodes: unknown[] }>(QUERY, { ids }, IAGO);
    expect(asIago.errors).toBeUndefined();
    expect(asIago.data!.nodes).toEqual([{ __typename: 'Channel', name: 'engineering' }, { __typename: 'Message', zulipId: messageId }]);

    const plain = await h.gql('query ($c: Long!, $m: [Long!]!) { channel(id: $c) { name } messagesByIds(ids: $m) { zulipId } }', { c: engineering, m: [messageId] }, POLONIUS);
    expect(plain.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const asGuest = await h.gql<{ nodes: unknown[] }>(QUERY, { ids }, POLONIUS);
    expect(asGuest.data!.nodes).toEqual([null, null]);
    expect(asGuest.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
  });

  it('answers another user\u2019s Me id with NOT_FOUND', async () => {
    const me = await h.gql<{ me: { id: string } }>('{ me { id } }', {}, IAGO);
    const { data, errors } = await h.gql<{ node: unknown }>('query ($id: ID!) { node(id: $id) { id } }', { id: me.data!.me.id }, HAMLET);
    expect(data?.node ?? null).toBeNull();
    expect(errors![0]!.extensions?.code).toBe('NOT_FOUND');
  });
});
