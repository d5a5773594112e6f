/**
 * Channels and topics end to end: GraphQL → gateway → REST → emulator. Queries (`channels` with
 * every flag, `channel`, `topics`, `Channel.topics`), the mutations `updateChannel` and
 * `archiveChannel`, their errors, feature-level gates, and the upstream cost of the list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createHarness } from '../../helpers/harness.js';

const email = (login: string) => demoUser(login).email;

interface ChannelData {
  zulipId: number;
  name: string;
  [key: string]: unknown;
}

const ALL_FIELDS = /* GraphQL */ `
  zulipId name description renderedDescription isArchived dateCreated creatorId
  creator { zulipId fullName }
  isPrivate isWebPublic historyPublicToSubscribers messageRetentionDays firstMessageId
  isRecentlyActive streamWeeklyTraffic isDefault streamPostPolicy isAnnouncementOnly
  canAddSubscribersGroup { groupId directMemberIds directSubgroupIds groups { zulipId name } users { zulipId } }
  canRemoveSubscribersGroup { groupId groups { name } }
  canAdministerChannelGroup { groupId directMemberIds users { fullName } groups { name } }
  canSendMessageGroup { groupId groups { name } }
  canSubscribeGroup { groupId groups { name } }
`;

describe('channels query', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('returns every field, with creator and permission groups, in at most 3 upstream requests', async () => {
    h.resetUpstreamRequests();
    const { data, errors, extensions } = await h.gql<{ channels: ChannelData[] }>(`{ channels { ${ALL_FIELDS} } }`, {}, { as: email('hamlet') });
    expect(errors).toBeUndefined();
    expect(data!.channels.map((c) => c.name)).toEqual(['announce', 'design', 'engineering', 'general']);
    const store = h.emulator.store;
    const general = data!.channels.find((c) => c.name === 'general')!;
    expect(general).toMatchObject({
      zulipId: h.channelId('general'),
      description: 'For **everything**',
      renderedDescription: '<p>For <strong>everything</strong></p>',
      isArchived: false,
      creatorId: h.userId('desdemona'),
      creator: { zulipId: h.userId('desdemona'), fullName: 'Desdemona' },
      isPrivate: false,
      isWebPublic: false,
      historyPublicToSubscribers: true,
      messageRetentionDays: null,
      isRecentlyActive: true,
      isDefault: null,
      streamPostPolicy: 1,
      isAnnouncementOnly: false,
      canSendMessageGroup: { groupId: store.systemGroupId('role:everyone'), groups: [{ name: 'role:everyone' }] },
      canRemoveSubscribersGroup: { groups: [{ name: 'role:administrators' }] },
    });
    expect(general.firstMessageId).toBe([...store.messages.values()].find((m) => m.stream_id === h.channelId('general'))!.id);
    expect(general.dateCreated).toBe(store.channels.get(h.channelId('general'))!.date_created);
    expect(data!.channels.find((c) => c.name === 'announce')).toMatchObject({ isWebPublic: true, streamPostPolicy: 2, isAnnouncementOnly: true });
    // GET /streams, then one GET /users and one GET /user_groups for every nested record.
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET streams', 'GET user_groups', 'GET users']);
    expect(extensions).toMatchObject({ upstreamRequests: 3 });
  });

  it('passes every GET /streams flag through', async () => {
    h.resetUpstreamRequests();
    const { data } = await h.gql<{ channels: ChannelData[] }>(
      `{ channels(includePublic: false, includeSubscribed: true, includeWebPublic: true, excludeArchived: false,
          includeDefault: true, includeOwnerSubscribed: false, includeCanAccessContent: false) { name isDefault isArchived } }`,
      {},
      { as: email('othello') },
    );
    expect(data!.channels).toEqual([
      { name: 'announce', isDefault: true, isArchived: false },
      { name: 'design', isDefault: false, isArchived: false },
      { name: 'general', isDefault: true, isArchived: false },
      { name: 'legacy', isDefault: false, isArchived: true },
    ]);
    const streamsCall = h.upstreamRequests.find((r) => r.path === 'streams')!;
    expect(streamsCall.query).toEqual({
      include_public: 'false',
      include_subscribed: 'true',
      include_web_public: 'true',
      exclude_archived: 'false',
      include_default: 'true',
      include_owner_subscribed: 'false',
      include_can_access_content: 'false',
    });
    const all = await h.gql<{ channels: ChannelData[] }>('{ channels(includeAll: true) { name } }', {}, { as: email('iago') });
    expect(all.data!.channels.map((c) => c.name)).toContain('moderation requests');
    const guest = await h.gql<{ channels: ChannelData[] }>('{ channels(includeCanAccessContent: true) { name } }', {}, { as: email('polonius') });
    expect(guest.data!.channels.map((c) => c.name)).toEqual(['announce', 'design', 'general']);
  });

  it('maps the upstream refusal of includeAllActive for non-administrators to BAD_REQUEST', async () => {
    const { data, errors } = await h.gql('{ channels(includeAllActive: true) { name } }', {}, { as: email('hamlet') });
    expect(data).toEqual({ channels: null });
    expect(errors?.[0]).toMatchObject({
      message: 'User not authorized for this query',
      path: ['channels'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'get-streams' },
    });
  });

  it('needs credentials', async () => {
    const { errors } = await h.gql('{ channels { name } }', {}, { as: null });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('marks the deprecated REST fields and arguments as deprecated', async () => {
    const { data } = await h.gql<{ __type: { fields: { name: string; deprecationReason: string | null }[] } }>(
      '{ __type(name: "Channel") { fields(includeDeprecated: true) { name deprecationReason } } }',
    );
    expect(data!.__type.fields.filter((f) => f.deprecationReason).map((f) => f.name).sort()).toEqual(['isAnnouncementOnly', 'streamPostPolicy']);
    const args = await h.gql<{ __schema: { queryType: { fields: { name: string; args: { name: string; isDeprecated: boolean }[] }[] } } }>(
      '{ __schema { queryType { fields { name args(includeDeprecated: true) { name isDeprecated } } } } }',
    );
    const channelsArgs = args.data!.__schema.queryType.fields.find((f) => f.name === 'channels')!.args;
    expect(channelsArgs.filter((a) => a.isDeprecated).map((a) => a.name)).toEqual(['includeAllActive']);
  });
});

describe('channel and topics queries', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('channel(id) returns one channel, archived ones too, and NOT_FOUND for others', async () => {
    const { data, errors } = await h.gql<{ channel: ChannelData }>('query($id: Long!) { channel(id: $id) { zulipId name isArchived } }', { id: h.channelId('legacy') }, { as: email('othello') });
    expect(errors).toBeUndefined();
    expect(data!.channel).toEqual({ zulipId: h.channelId('legacy'), name: 'legacy', isArchived: true });
    for (const id of [h.channelId('engineering'), 9999]) {
      const hidden = await h.gql('query($id: Long!) { channel(id: $id) { name } }', { id }, { as: email('cordelia') });
      expect(hidden.data).toEqual({ channel: null });
      expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
  });

  it('topics(channelId) lists topics newest first, with their channel, and the empty topic by name or as ""', async () => {
    const general = h.channelId('general');
    const query = 'query($id: Long!, $empty: Boolean) { topics(channelId: $id, allowEmptyTopicName: $empty) { name maxId channelId channel { name } } }';
    const { data, errors } = await h.gql<{ topics: { name: string; maxId: number; channel: { name: string } }[] }>(query, { id: general }, { as: email('hamlet') });
    expect(errors).toBeUndefined();
    expect(data!.topics.map((t) => t.name)).toEqual(['greetings', 'general chat', '\u2714 deploy failure']);
    expect(data!.topics[0]).toMatchObject({ channelId: general, channel: { name: 'general' } });
    const newest = Math.max(...[...h.emulator.store.messages.values()].filter((m) => m.stream_id === general && m.topic === 'greetings').map((m) => m.id));
    expect(data!.topics[0]!.maxId).toBe(newest);
    const raw = await h.gql<{ topics: { name: string }[] }>(query, { id: general, empty: true }, { as: email('hamlet') });
    expect(raw.data!.topics.map((t) => t.name)).toEqual(['greetings', '', '\u2714 deploy failure']);
  });

  it('topics of a channel the caller cannot read is a BAD_REQUEST error', async () => {
    const { data, errors } = await h.gql('query($id: Long!) { topics(channelId: $id) { name } }', { id: h.channelId('engineering') }, { as: email('cordelia') });
    expect(data).toEqual({ topics: null });
    expect(errors?.[0]).toMatchObject({ message: 'Invalid channel ID', extensions: { code: 'BAD_REQUEST', route: 'get-stream-topics' } });
  });

  it('Channel.topics lists each channel\u2019s topics', async () => {
    const { data, errors } = await h.gql<{ channels: { name: string; topics: { name: string }[] }[] }>(
      '{ channels(includePublic: false) { name topics { name } } }',
      {},
      { as: email('cordelia') },
    );
    expect(errors).toBeUndefined();
    expect(Object.fromEntries(data!.channels.map((c) => [c.name, c.topics.map((t) => t.name)]))).toEqual({
      announce: ['launch'],
      design: ['colors'],
      general: ['greetings', 'general chat', '\u2714 deploy failure'],
    });
  });
});

describe('updateChannel', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const UPDATE = /* GraphQL */ `
    mutation($id: Long!, $description: String, $newName: String, $isPrivate: Boolean, $isWebPublic: Boolean,
             $history: Boolean, $isDefault: Boolean, $retention: MessageRetentionInput,
             $canSend: GroupSettingUpdateInput, $canAdminister: GroupSettingUpdateInput, $canSubscribe: GroupSettingUpdateInput) {
      updateChannel(id: $id, description: $description, newName: $newName, isPrivate: $isPrivate, isWebPublic: $isWebPublic,
                    historyPublicToSubscribers: $history, isDefault: $isDefault, messageRetentionDays: $retention,
                    canSendMessageGroup: $canSend, canAdministerChannelGroup: $canAdminister, canSubscribeGroup: $canSubscribe) {
        zulipId name description renderedDescription isPrivate historyPublicToSubscribers messageRetentionDays
        canSendMessageGroup { groupId directMemberIds } canAdministerChannelGroup { directMemberIds }
      }
    }`;

  it('changes the description and the name and returns the channel as it now is', async () => {
    const design = h.channelId('design');
    const { data, errors } = await h.gql<{ updateChannel: ChannelData }>(UPDATE, { id: design, description: 'Shapes', newName: 'visual design' }, { as: email('iago') });
    expect(errors).toBeUndefined();
    expect(data!.updateChannel).toMatchObject({ zulipId: design, name: 'visual design', description: 'Shapes', renderedDescription: '<p>Shapes</p>' });
    expect(h.emulator.store.channels.get(design)!.name).toBe('visual design');
  });

  it('changes privacy, retention and permissions', async () => {
    const engineering = h.channelId('engineering');
    const store = h.emulator.store;
    const mods = store.systemGroupId('role:moderators');
    const everyone = store.systemGroupId('role:everyone');
    const { data, errors } = await h.gql<{ updateChannel: ChannelData }>(
      UPDATE,
      {
        id: engineering,
        history: true,
        retention: { days: 30 },
        canSend: { new: { groupId: mods }, old: { groupId: everyone } },
        canAdminister: { new: { directMembers: [h.userId('hamlet')] } },
      },
      { as: email('desdemona') },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateChannel).toMatchObject({
      isPrivate: true,
      historyPublicToSubscribers: true,
      messageRetentionDays: 30,
      canSendMessageGroup: { groupId: mods, directMemberIds: null },
      canAdministerChannelGroup: { directMemberIds: [h.userId('hamlet')] },
    });
    const unlimited = await h.gql<{ updateChannel: ChannelData }>(UPDATE, { id: engineering, retention: { policy: 'UNLIMITED' } }, { as: email('desdemona') });
    expect(unlimited.data!.updateChannel.messageRetentionDays).toBe(-1);
    const inherit = await h.gql<{ updateChannel: ChannelData }>(UPDATE, { id: engineering, retention: { policy: 'REALM_DEFAULT' } }, { as: email('desdemona') });
    expect(inherit.data!.updateChannel.messageRetentionDays).toBeNull();
    // The new channel administrator can now edit it.
    const byHamlet = await h.gql<{ updateChannel: ChannelData }>(UPDATE, { id: engineering, description: 'by hamlet' }, { as: email('hamlet') });
    expect(byHamlet.data!.updateChannel.description).toBe('by hamlet');
  });

  it('returns null when the caller no longer sees the channel after the change', async () => {
    const created = await h.gql('mutation { subscribe(channels: [{name: "hamlet-only"}], inviteOnly: true) { unauthorized } }', {}, { as: email('hamlet') });
    expect(created.errors).toBeUndefined();
    const id = h.channelId('hamlet-only');
    const [hamlet, cordelia] = [h.userId('hamlet'), h.userId('cordelia')];
    const shared = await h.gql<{ updateChannel: ChannelData | null }>(UPDATE, { id, canAdminister: { new: { directMembers: [hamlet, cordelia] } } }, { as: email('hamlet') });
    expect(shared.data!.updateChannel).toMatchObject({ canAdministerChannelGroup: { directMemberIds: [hamlet, cordelia] } });
    // Cordelia sees the private channel only as one of its administrators; giving that up hides it.
    const { data, errors } = await h.gql<{ updateChannel: ChannelData | null }>(UPDATE, { id, canAdminister: { new: { directMembers: [hamlet] } } }, { as: email('cordelia') });
    expect(errors).toBeUndefined();
    expect(data!.updateChannel).toBeNull();
    expect(h.emulator.store.channels.get(id)!.can_administer_channel_group).toEqual({ direct_members: [hamlet], direct_subgroups: [] });
  });

  it('reports upstream refusals with the Zulip code and message', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ id: h.channelId('announce'), history: false }, 'hamlet', 'You do not have permission to administer this channel.'],
      [{ id: h.channelId('announce'), history: false }, 'iago', 'Invalid parameters'],
      [{ id: 9999, description: 'x' }, 'iago', 'Invalid channel ID'],
      [{ id: h.channelId('announce'), retention: { days: 3 } }, 'iago', 'Must be an organization owner'],
      [
        { id: h.channelId('announce'), canSend: { new: { groupId: h.emulator.store.systemGroupId('role:moderators') }, old: { groupId: h.emulator.store.systemGroupId('role:nobody') } } },
        'iago',
        "'old' value does not match the expected value.",
      ],
    ];
    for (const [vars, login, message] of cases) {
      const { data, errors } = await h.gql(UPDATE, vars, { as: email(login) });
      expect(data).toEqual({ updateChannel: null });
      expect(errors?.[0]).toMatchObject({ message, path: ['updateChannel'], extensions: { code: 'BAD_REQUEST', route: 'update-stream' } });
    }
  });

  it('refuses a malformed group-setting input before calling upstream', async () => {
    h.resetUpstreamRequests();
    const { errors } = await h.gql(UPDATE, { id: h.channelId('announce'), canSend: { new: { groupId: 1, directMembers: [2] } } }, { as: email('iago') });
    expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests.filter((r) => r.method === 'PATCH')).toEqual([]);
    const both = await h.gql(UPDATE, { id: h.channelId('announce'), retention: { days: 3, policy: 'UNLIMITED' } }, { as: email('iago') });
    expect(both.errors?.[0]?.message).toMatch(/exactly one|oneOf|MessageRetentionInput/i);
  });
});

describe('updateChannel and archiveChannel on older servers', () => {
  const h = createHarness({ emulatorSettings: { featureLevel: 356 } });
  afterAll(() => h.close());

  it('fails with UNSUPPORTED_BY_SERVER naming the level, without calling update', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql(
      'mutation($id: Long!) { updateChannel(id: $id, canSubscribeGroup: {new: {groupId: 1}}) { zulipId } }',
      { id: h.channelId('general') },
      { as: email('iago') },
    );
    expect(data).toEqual({ updateChannel: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 357, featureLevel: 356 });
    expect(h.upstreamRequests.filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('refuses privacy changes of archived channels before feature level 362, but allows other channels', async () => {
    const archived = await h.gql('mutation($id: Long!) { updateChannel(id: $id, isPrivate: true) { zulipId } }', { id: h.channelId('legacy') }, { as: email('desdemona') });
    expect(archived.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 362 });
    expect(h.emulator.store.channels.get(h.channelId('legacy'))!.invite_only).toBe(false);
    const active = await h.gql<{ updateChannel: ChannelData }>(
      'mutation($id: Long!) { updateChannel(id: $id, isPrivate: true) { isPrivate } }',
      { id: h.channelId('design') },
      { as: email('iago') },
    );
    expect(active.errors).toBeUndefined();
    expect(active.data!.updateChannel).toEqual({ isPrivate: true });
  });
});

describe('archiveChannel', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('archives and returns the archived channel', async () => {
    const design = h.channelId('design');
    const { data, errors } = await h.gql<{ archiveChannel: ChannelData }>('mutation($id: Long!) { archiveChannel(id: $id) { zulipId isArchived } }', { id: design }, { as: email('iago') });
    expect(errors).toBeUndefined();
    expect(data!.archiveChannel).toEqual({ zulipId: design, isArchived: true });
    const list = await h.gql<{ channels: ChannelData[] }>('{ channels { name } }', {}, { as: email('iago') });
    expect(list.data!.channels.map((c) => c.name)).not.toContain('design');
  });

  it('maps refusals to BAD_REQUEST errors', async () => {
    for (const [id, login, message] of [
      [h.channelId('general'), 'hamlet', 'You do not have permission to administer this channel.'],
      [h.channelId('legacy'), 'iago', 'Channel is already deactivated'],
    ] as const) {
      const { data, errors } = await h.gql('mutation($id: Long!) { archiveChannel(id: $id) { zulipId } }', { id }, { as: email(login) });
      expect(data).toEqual({ archiveChannel: null });
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', route: 'archive-stream' } });
    }
  });
});

describe('every feature-level gate of channels, on both sides of its level', () => {
  const groupId = (h: ReturnType<typeof createHarness>, name: string) => h.emulator.store.groupByName(name)!.id;
  /** [what, the level it needs, the operation, its variables for a harness] */
  const CASES: [string, number, string, (h: ReturnType<typeof createHarness>) => Record<string, unknown>][] = [
    ['updateChannel isWebPublic', 98, 'mutation($id: Long!) { updateChannel(id: $id, isWebPublic: false) { zulipId } }', (h) => ({ id: h.channelId('general') })],
    [
      'updateChannel historyPublicToSubscribers alone',
      136,
      'mutation($id: Long!) { updateChannel(id: $id, historyPublicToSubscribers: true) { zulipId } }',
      (h) => ({ id: h.channelId('general') }),
    ],
    ['updateChannel isDefault', 200, 'mutation($id: Long!) { updateChannel(id: $id, isDefault: false) { zulipId } }', (h) => ({ id: h.channelId('general') })],
    ...(
      [
        ['canAdministerChannelGroup', 325],
        ['canSendMessageGroup', 333],
        ['canAddSubscribersGroup', 342],
        ['canSubscribeGroup', 357],
      ] as const
    ).map(
      ([field, level]) =>
        [
          `updateChannel ${field}`,
          level,
          `mutation($id: Long!, $g: Long!) { updateChannel(id: $id, ${field}: { new: { groupId: $g } }) { id } }`,
          (h: ReturnType<typeof createHarness>) => ({ id: h.channelId('general'), g: groupId(h, 'role:administrators') }),
        ] as (typeof CASES)[number],
    ),
    ['channels excludeArchived: false', 315, '{ channels(excludeArchived: false) { zulipId } }', () => ({})],
    ['channels includeAll', 356, '{ channels(includeAll: true) { zulipId } }', () => ({})],
    [
      'topics allowEmptyTopicName',
      334,
      'query($id: Long!) { topics(channelId: $id, allowEmptyTopicName: true) { name } }',
      (h) => ({ id: h.channelId('general') }),
    ],
  ];

  it.each(CASES)('%s needs feature level %i', async (_what, level, operation, variables) => {
    const old = createHarness({ emulatorSettings: { featureLevel: level - 1 } });
    const current = createHarness({ emulatorSettings: { featureLevel: level } });
    try {
      const refused = await old.gql(operation, variables(old), { as: email('desdemona') });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: level, featureLevel: level - 1 });
      // Nothing but the level (and, for a mutation, no change) reached the server.
      expect(old.upstreamRequests.filter((r) => r.method !== 'GET')).toEqual([]);
      expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
      const served = await current.gql(operation, variables(current), { as: email('desdemona') });
      expect(served.errors).toBeUndefined();
    } finally {
      await Promise.all([old.close(), current.close()]);
    }
  });
});

describe('updateChannel with role-gated changes after others', () => {
  const UPDATE_ROLE = 'mutation($id: Long!, $p: Boolean, $d: Boolean, $r: MessageRetentionInput) { updateChannel(id: $id, isPrivate: $p, isDefault: $d, messageRetentionDays: $r) { isPrivate messageRetentionDays } }';

  it('refuses before any change what the server would refuse after the privacy change', async () => {
    const h = createHarness();
    try {
      const design = h.channelId('design');
      // Iago administers but does not own the organization.
      const retention = await h.gql(UPDATE_ROLE, { id: design, p: true, r: { days: 30 } }, { as: email('iago') });
      expect(retention.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'messageRetentionDays' });
      // Cordelia administers no organization: isDefault together with a privacy change.
      const makeDefault = await h.gql(UPDATE_ROLE, { id: design, p: false, d: true }, { as: email('cordelia') });
      expect(makeDefault.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'isDefault' });
      expect(h.upstreamRequests.filter((r) => r.method === 'PATCH')).toEqual([]);
      expect(h.emulator.store.channels.get(design)!.invite_only).toBe(false);
      // The owner passes the check: one GET /users/me more, then the update.
      h.resetUpstreamRequests();
      const owner = await h.gql<{ updateChannel: { isPrivate: boolean } }>(UPDATE_ROLE, { id: design, p: true, r: { days: 30 } }, { as: email('desdemona') });
      expect(owner.errors).toBeUndefined();
      expect(owner.data!.updateChannel.isPrivate).toBe(true);
      expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`).filter((c) => c !== 'GET server_settings')).toEqual([
        'GET users/me',
        `PATCH streams/${design}`,
        `GET streams/${design}`,
      ]);
      // Alone, a role-gated change needs no check: the server refuses it with nothing applied.
      h.resetUpstreamRequests();
      const alone = await h.gql(UPDATE_ROLE, { id: design, r: { days: 7 } }, { as: email('iago') });
      expect(alone.errors?.[0]).toMatchObject({ message: 'Must be an organization owner', extensions: { code: 'BAD_REQUEST' } });
      expect(h.upstreamRequests.some((r) => r.path === 'users/me')).toBe(false);
    } finally {
      await h.close();
    }
  });
});

describe('channelByName and Channel.emailAddress', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('channelByName resolves the name upstream, then loads the channel', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ channelByName: ChannelData }>('{ channelByName(name: "General") { zulipId name } }', {}, { as: email('hamlet') });
    expect(errors).toBeUndefined();
    expect(data!.channelByName).toEqual({ zulipId: h.channelId('general'), name: 'general' });
    const lookups = h.upstreamRequests.filter((r) => r.path === 'get_stream_id');
    expect(lookups).toEqual([{ method: 'GET', path: 'get_stream_id', query: { stream: 'General' } }]);
  });

  it('channelByName passes on BAD_REQUEST for a channel the caller cannot access, and refuses an empty name upstream of nothing', async () => {
    const hidden = await h.gql('{ channelByName(name: "engineering") { zulipId } }', {}, { as: email('cordelia') });
    expect(hidden.errors?.[0]).toMatchObject({
      message: "Invalid channel name 'engineering'",
      extensions: { code: 'BAD_REQUEST', route: 'get-stream-id' },
    });
    h.resetUpstreamRequests();
    const empty = await h.gql('{ channelByName(name: "  ") { zulipId } }', {}, { as: email('cordelia') });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests.filter((r) => r.path === 'get_stream_id')).toEqual([]);
  });

  it('emailAddress asks the server once per read, with the sender when given', async () => {
    h.resetUpstreamRequests();
    const bot = h.emulator.store.userByEmail('hamlet-bot@zulip.example.com')!;
    const { data, errors } = await h.gql<{ channel: { gateway: string; bot: string } }>(
      'query($id: Long!, $bot: Long) { channel(id: $id) { gateway: emailAddress bot: emailAddress(senderId: $bot) } }',
      { id: h.channelId('general'), bot: bot.user_id },
      { as: email('hamlet') },
    );
    expect(errors).toBeUndefined();
    expect(data!.channel.gateway).toMatch(/^general\.[0-9a-f]{32}\.show-sender@/);
    expect(data!.channel.bot).toMatch(/^general\.[0-9a-f]{32}\.show-sender@/);
    expect(data!.channel.bot).not.toBe(data!.channel.gateway);
    const calls = h.upstreamRequests.filter((r) => r.path.endsWith('/email_address'));
    expect(calls.map((r) => r.query)).toEqual([{}, { sender_id: String(bot.user_id) }]);
  });

  it('emailAddress maps the server refusal of a sender, and refuses a non-positive sender before any call', async () => {
    const refused = await h.gql('query($id: Long!) { channel(id: $id) { emailAddress(senderId: 1) } }', { id: h.channelId('general') }, { as: email('hamlet') });
    expect(refused.errors?.[0]).toMatchObject({ message: 'No such bot', extensions: { code: 'BAD_REQUEST', route: 'get-stream-email-address' } });
    h.resetUpstreamRequests();
    const bad = await h.gql('query($id: Long!) { channel(id: $id) { emailAddress(senderId: 0) } }', { id: h.channelId('general') }, { as: email('hamlet') });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests.filter((r) => r.path.endsWith('/email_address'))).toEqual([]);
  });

  it.each([
    [225, 'emailAddress', 226],
    [334, 'emailAddress(senderId: 5)', 335],
  ])('on feature level %i, %s answers UNSUPPORTED_BY_SERVER without calling it', async (level, field, required) => {
    const old = createHarness({ emulatorSettings: { featureLevel: level } });
    try {
      const { data, errors } = await old.gql(`query($id: Long!) { channel(id: $id) { ${field} } }`, { id: old.channelId('general') }, { as: email('hamlet') });
      expect(data).toEqual({ channel: null });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: required, featureLevel: level });
      expect(old.upstreamRequests.filter((r) => r.path.endsWith('/email_address'))).toEqual([]);
    } finally {
      await old.close();
    }
  });
});
