/**
 * Channels and topics in the emulator, driven through the REST client (src/zulip/routes/channels.ts):
 * `GET /streams` and its flags, `GET /streams/{id}`, `PATCH /streams/{id}` (every parameter and rule),
 * archiving, topics, the `stream` / `default_streams` register state, and the events each change
 * sends to exactly the users who may see the channel.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { insertMessage } from '../../src/emulator/factory.js';
import type { Channel } from '../../src/zulip/model/channels.js';
import { json, raw } from '../../src/zulip/params.js';
import {
  archiveStream,
  getStreamById,
  getStreamEmailAddress,
  getStreamId,
  getStreams,
  getStreamTopics,
  updateStream,
} from '../../src/zulip/routes/channels.js';
import { subscribe } from '../../src/zulip/routes/subscriptions.js';
import { caughtApiError, expectValidResponse, NEWER_CHANNEL_FIELDS, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';

/** Channel fields newer than the facts fixture (feature level 247; https://zulip.com/api/get-streams). */
const NEW_CHANNEL_FIELDS = [...NEWER_CHANNEL_FIELDS, 'stream_ids'];

/** The demo organization; `listen` registers for the channel events by default. */
function setup(settings: Partial<EmulatorSettings> = {}) {
  return setupEmulator({ settings, eventTypes: ['stream', 'subscription', 'default_streams'] });
}

function expectValid(method: string, path: string, body: unknown): void {
  expectValidResponse(method, path, body, NEW_CHANNEL_FIELDS);
}

const names = (streams: Channel[]) => streams.map((s) => s.name);

describe('GET /streams', () => {
  it('lists public and subscribed channels by name with every field of the spec, as the OpenAPI schema says', async () => {
    const t = setup();
    const body = await getStreams(t.as('hamlet'));
    expectValid('GET', '/streams', body);
    expect(names(body.streams)).toEqual(['announce', 'design', 'engineering', 'general']);
    const general = body.streams.find((s) => s.name === 'general')!;
    const firstGeneral = [...t.emulator.store.messages.values()].find((m) => m.stream_id === general.stream_id)!;
    expect(general).toMatchObject({
      is_archived: false,
      invite_only: false,
      is_web_public: false,
      history_public_to_subscribers: true,
      description: 'For **everything**',
      rendered_description: '<p>For <strong>everything</strong></p>',
      creator_id: t.userId('desdemona'),
      first_message_id: firstGeneral.id,
      message_retention_days: null,
      is_recently_active: true,
      stream_post_policy: 1,
      is_announcement_only: false,
      can_send_message_group: t.emulator.store.systemGroupId('role:everyone'),
      can_remove_subscribers_group: t.emulator.store.systemGroupId('role:administrators'),
    });
    expect(general.stream_weekly_traffic).toBeGreaterThan(0);
    expect(general).not.toHaveProperty('is_default');
    // Posting limited to administrators reads as the deprecated "announcement only" policy.
    expect(body.streams.find((s) => s.name === 'announce')).toMatchObject({ stream_post_policy: 2, is_announcement_only: true, is_web_public: true });
  });

  it('applies include_public, include_subscribed, include_web_public and exclude_archived', async () => {
    const t = setup();
    const hamlet = t.as('hamlet');
    expect(names((await getStreams(hamlet, { includePublic: false })).streams)).toEqual(['announce', 'design', 'engineering', 'general']);
    expect(names((await getStreams(t.as('cordelia'), { includePublic: false })).streams)).toEqual(['announce', 'design', 'general']);
    expect(names((await getStreams(t.as('cordelia'), { includeSubscribed: false })).streams)).toEqual(['announce', 'design', 'general']);
    const webOnly = await getStreams(t.as('polonius'), { includePublic: false, includeSubscribed: false, includeWebPublic: true });
    expect(names(webOnly.streams)).toEqual(['announce']);
    const withArchived = await getStreams(hamlet, { excludeArchived: false });
    expect(names(withArchived.streams)).toEqual(['announce', 'design', 'engineering', 'general', 'legacy']);
    expect(withArchived.streams.find((s) => s.name === 'legacy')?.is_archived).toBe(true);
    expect((await getStreams(hamlet, { includePublic: false, includeSubscribed: false })).streams).toEqual([]);
  });

  it('gives guests only what they are subscribed to, plus web-public or content-accessible channels on request', async () => {
    const t = setup();
    const polonius = t.as('polonius');
    expect(names((await getStreams(polonius)).streams)).toEqual(['design', 'general']);
    expect(names((await getStreams(polonius, { includeCanAccessContent: true })).streams)).toEqual(['announce', 'design', 'general']);
  });

  it('include_all lists every channel with metadata access, private ones included for administrators', async () => {
    const t = setup();
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'hamlet-private' }], inviteOnly: true });
    expect(names((await getStreams(t.as('iago'))).streams)).not.toContain('hamlet-private');
    expect(names((await getStreams(t.as('iago'), { includeAll: true })).streams)).toEqual([
      'announce', 'design', 'engineering', 'general', 'hamlet-private', 'moderation requests',
    ]);
    expect(names((await getStreams(t.as('cordelia'), { includeAll: true })).streams)).toEqual(['announce', 'design', 'general']);
    expect(names((await getStreams(t.as('iago'), { includeAll: true, excludeArchived: false })).streams)).toContain('legacy');
  });

  it('include_default adds is_default; include_owner_subscribed adds the bot owner\u2019s channels', async () => {
    const t = setup();
    const body = await getStreams(t.as('hamlet'), { includeDefault: true });
    expectValid('GET', '/streams', body);
    expect(Object.fromEntries(body.streams.map((s) => [s.name, s.is_default]))).toEqual({
      announce: true, design: false, engineering: false, general: true,
    });
    const bot = t.as('hamlet-bot@zulip.example.com');
    expect(names((await getStreams(bot, { includePublic: false })).streams)).toEqual(['general']);
    expect(names((await getStreams(bot, { includePublic: false, includeOwnerSubscribed: true })).streams)).toEqual([
      'announce', 'design', 'engineering', 'general',
    ]);
    // For a human the flag changes nothing.
    expect(names((await getStreams(t.as('cordelia'), { includePublic: false, includeOwnerSubscribed: true })).streams)).toEqual([
      'announce', 'design', 'general',
    ]);
  });

  it('include_all_active is for administrators only', async () => {
    const t = setup();
    const e = await caughtApiError(getStreams(t.as('hamlet'), { includeAllActive: true }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'User not authorized for this query', 400]);
    expect(names((await getStreams(t.as('iago'), { includeAllActive: true })).streams)).toContain('moderation requests');
  });

  it('rejects a malformed flag with BAD_REQUEST', async () => {
    const e = await caughtApiError(setup().as('hamlet').request('get-streams', 'GET', 'streams', { include_public: raw('maybe') }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'include_public is not a boolean']);
  });

  it('reports flags newer than the server as unsupported and ignores them', async () => {
    const t = setup({ featureLevel: 314 });
    const body = await getStreams(t.as('iago'), { includeAll: true, excludeArchived: false });
    expect(body.ignored_parameters_unsupported).toEqual(['exclude_archived', 'include_all']);
    expect(names(body.streams)).toEqual(['announce', 'design', 'engineering', 'general', 'moderation requests']);
    const topics = await getStreamTopics(setup({ featureLevel: 333 }).as('hamlet'), { streamId: t.channelId('general'), allowEmptyTopicName: true });
    expect(topics.ignored_parameters_unsupported).toEqual(['allow_empty_topic_name']);
    expect(topics.topics.map((topic) => topic.name)).toContain('general chat');
  });

  it('estimates no traffic and no first message for a new channel', async () => {
    const t = setup();
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'fresh' }] });
    const fresh = (await getStreams(t.as('hamlet'))).streams.find((s) => s.name === 'fresh')!;
    expect(fresh).toMatchObject({ first_message_id: null, stream_weekly_traffic: null, is_recently_active: true, creator_id: t.userId('hamlet') });
  });
});

describe('GET /streams/{stream_id}', () => {
  it('returns one channel, archived ones included', async () => {
    const t = setup();
    const body = await getStreamById(t.as('hamlet'), t.channelId('general'));
    expectValid('GET', `/streams/${t.channelId('general')}`, body);
    expect(body.stream.name).toBe('general');
    expect((await getStreamById(t.as('othello'), t.channelId('legacy'))).stream.is_archived).toBe(true);
  });

  it('answers "Invalid channel ID" for unknown and inaccessible channels', async () => {
    const t = setup();
    for (const [login, id] of [['hamlet', 9999], ['cordelia', t.channelId('engineering')], ['polonius', t.channelId('engineering')]] as const) {
      const e = await caughtApiError(getStreamById(t.as(login), id));
      expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Invalid channel ID', 400]);
      expect(validateResponse({ method: 'GET', path: '/streams/{stream_id}' }, 400, { result: 'error', msg: e.message, code: e.code }).errors).toBe('');
    }
  });
});

describe('PATCH /streams/{stream_id}', () => {
  it('changes the description and tells exactly the users who can see the channel', async () => {
    const t = setup();
    const hamlet = await t.listen('hamlet');
    const cordelia = await t.listen('cordelia');
    const body = await updateStream(t.as('iago'), { streamId: t.channelId('engineering'), description: 'Ship it\nsoon' });
    expectValid('PATCH', `/streams/${t.channelId('engineering')}`, body);
    const channel = t.emulator.store.channels.get(t.channelId('engineering'))!;
    expect(channel.description).toBe('Ship it soon');
    expect(await hamlet()).toEqual([
      expect.objectContaining({
        type: 'stream', op: 'update', stream_id: channel.stream_id, name: 'engineering', property: 'description',
        value: 'Ship it soon', rendered_description: '<p>Ship it soon</p>',
      }),
    ]);
    // A private channel's update is not seen by a non-subscriber.
    expect(await cordelia()).toEqual([]);
  });

  it('renames, keyed by the old name in the event, and refuses duplicate, unchanged, empty and long names', async () => {
    const t = setup();
    const othello = await t.listen('othello');
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), newName: '  visual design ' });
    expect(t.emulator.store.channels.get(t.channelId('visual design'))!.name).toBe('visual design');
    expect(await othello()).toEqual([expect.objectContaining({ property: 'name', name: 'design', value: 'visual design' })]);
    const iago = t.as('iago');
    const cases: [string, string][] = [
      ['GENERAL', 'Channel name already in use.'],
      ['visual design', 'Channel already has that name.'],
      ['   ', "Channel name can't be empty."],
      ['x'.repeat(61), 'Channel name too long (limit: 60 characters).'],
      ['bad\u0007name', 'Invalid character in channel name, at position 4.'],
    ];
    for (const [newName, msg] of cases) {
      const e = await caughtApiError(updateStream(iago, { streamId: t.channelId('visual design'), newName }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', msg]);
    }
  });

  it('bounds the description and refuses NUL characters', async () => {
    const t = setup({ maxStreamDescriptionLength: 10 });
    const long = await caughtApiError(updateStream(t.as('iago'), { streamId: t.channelId('general'), description: 'x'.repeat(11) }));
    expect(long.message).toBe('description is too long (limit: 10 characters)');
    const nul = await caughtApiError(updateStream(t.as('iago'), { streamId: t.channelId('general'), description: 'a\u0000b' }));
    expect(nul.message).toBe('description contains NULL (0x00) characters.');
  });

  it('makes a public channel private: users who lose access get stream delete, the rest the update', async () => {
    const t = setup();
    await subscribe(t.as('iago'), { subscriptions: [{ name: 'ops' }] });
    const ops = t.channelId('ops');
    const [iago, hamlet, polonius] = [await t.listen('iago'), await t.listen('hamlet'), await t.listen('polonius')];
    await updateStream(t.as('iago'), { streamId: ops, isPrivate: true });
    expect(t.emulator.store.channels.get(ops)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
    expect(await iago()).toEqual([
      expect.objectContaining({
        type: 'stream', op: 'update', property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false,
      }),
    ]);
    expect(await hamlet()).toEqual([expect.objectContaining({ type: 'stream', op: 'delete', stream_ids: [ops], streams: [{ stream_id: ops }] })]);
    expect(await polonius()).toEqual([]);

    // And back: hamlet learns about the channel again, with its subscribers.
    await updateStream(t.as('iago'), { streamId: ops, isPrivate: false });
    expect(await hamlet()).toEqual([
      expect.objectContaining({ type: 'stream', op: 'create', streams: [expect.objectContaining({ stream_id: ops, invite_only: false })] }),
      { type: 'subscription', op: 'peer_add', stream_ids: [ops], user_ids: [t.userId('iago')], id: expect.any(Number) },
    ]);
  });

  it('enforces the privacy rules: history, web-public, moderation channel, content access', async () => {
    const t = setup();
    const iago = t.as('iago');
    const cases: [Parameters<typeof updateStream>[1], string][] = [
      [{ streamId: t.channelId('general'), historyPublicToSubscribers: false }, 'Invalid parameters'],
      [{ streamId: t.channelId('engineering'), isPrivate: false, historyPublicToSubscribers: false }, 'Invalid parameters'],
      [{ streamId: t.channelId('engineering'), isWebPublic: true }, 'Invalid parameters'],
      [{ streamId: t.channelId('announce'), historyPublicToSubscribers: false }, 'Invalid parameters'],
      [{ streamId: t.channelId('moderation requests'), isPrivate: false }, 'Moderation request channel must be private.'],
      [{ streamId: t.channelId('general'), isPrivate: true }, 'A default channel cannot be private.'],
    ];
    for (const [options, msg] of cases) {
      const e = await caughtApiError(updateStream(iago, options));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', msg]);
    }
    expect(validateResponse({ method: 'PATCH', path: '/streams/{stream_id}' }, 400, { result: 'error', msg: 'Invalid parameters', code: 'BAD_REQUEST' }).errors).toBe('');
    // Private history for a private channel is fine, and so is sharing it.
    await updateStream(iago, { streamId: t.channelId('engineering'), historyPublicToSubscribers: true });
    expect(t.emulator.store.channels.get(t.channelId('engineering'))!.history_public_to_subscribers).toBe(true);
  });

  it('needs content access (a subscription) for an administrator to change a private channel\u2019s privacy or join permissions', async () => {
    const t = setup();
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'secret' }], inviteOnly: true });
    const secret = t.channelId('secret');
    const iago = t.as('iago');
    const mods = t.emulator.store.systemGroupId('role:moderators');
    for (const options of [{ isPrivate: false }, { canAddSubscribersGroup: { new: mods } }, { canSubscribeGroup: { new: mods } }]) {
      const e = await caughtApiError(updateStream(iago, { streamId: secret, ...options }));
      expect(e.message).toBe('Channel content access is required.');
    }
    // Metadata-level changes need no subscription.
    await updateStream(iago, { streamId: secret, description: 'seen by admins', canSendMessageGroup: { new: mods } });
    expect(t.emulator.store.channels.get(secret)).toMatchObject({ description: 'seen by admins', can_send_message_group: mods });
  });

  it('lets only administrators and channel administrators edit; others get the documented errors', async () => {
    const t = setup();
    const e = await caughtApiError(updateStream(t.as('hamlet'), { streamId: t.channelId('general'), description: 'mine' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'You do not have permission to administer this channel.']);
    expect((await caughtApiError(updateStream(t.as('hamlet'), { streamId: 9999, description: 'x' }))).message).toBe('Invalid channel ID');
    // A guest never administers, and cannot even see a private channel.
    expect((await caughtApiError(updateStream(t.as('polonius'), { streamId: t.channelId('engineering'), description: 'x' }))).message).toBe('Invalid channel ID');
    expect((await caughtApiError(updateStream(t.as('polonius'), { streamId: t.channelId('general'), description: 'x' }))).message).toBe(
      'You do not have permission to administer this channel.',
    );
    // The creator of a channel administers it by default.
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'hamlets' }] });
    await updateStream(t.as('hamlet'), { streamId: t.channelId('hamlets'), description: 'mine' });
    expect(t.emulator.store.channels.get(t.channelId('hamlets'))!.can_administer_channel_group).toEqual({ direct_members: [t.userId('hamlet')], direct_subgroups: [] });
    // ...and so does a member of can_administer_channel_group.
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), canAdministerChannelGroup: { new: { direct_members: [t.userId('cordelia')], direct_subgroups: [] } } });
    await updateStream(t.as('cordelia'), { streamId: t.channelId('design'), description: 'by cordelia' });
    expect(t.emulator.store.channels.get(t.channelId('design'))!.description).toBe('by cordelia');
  });

  it('adds and removes default channels (administrators only) with a default_streams event of IDs', async () => {
    const t = setup();
    const othello = await t.listen('othello');
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), isDefaultStream: true });
    expect([...t.emulator.store.defaultChannelIds].sort()).toEqual([t.channelId('general'), t.channelId('design'), t.channelId('announce')].sort());
    expect(await othello()).toEqual([
      { type: 'default_streams', default_streams: [t.channelId('general'), t.channelId('design'), t.channelId('announce')].sort((a, b) => a - b), id: expect.any(Number) },
    ]);
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), isDefaultStream: false });
    expect(t.emulator.store.defaultChannelIds.has(t.channelId('design'))).toBe(false);
    expect((await caughtApiError(updateStream(t.as('iago'), { streamId: t.channelId('engineering'), isDefaultStream: true }))).message).toBe(
      'A default channel cannot be private.',
    );
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), canAdministerChannelGroup: { new: { direct_members: [t.userId('cordelia')], direct_subgroups: [] } } });
    expect((await caughtApiError(updateStream(t.as('cordelia'), { streamId: t.channelId('design'), isDefaultStream: true }))).message).toBe(
      'You do not have permission to change default channels.',
    );
  });

  it('changes message retention (owners only): days, unlimited, realm_default', async () => {
    const t = setup();
    const general = t.channelId('general');
    expect((await caughtApiError(updateStream(t.as('iago'), { streamId: general, messageRetentionDays: 30 }))).message).toBe('Must be an organization owner');
    const desdemona = t.as('desdemona');
    const hamlet = await t.listen('hamlet');
    await updateStream(desdemona, { streamId: general, messageRetentionDays: 30 });
    expect(t.emulator.store.channels.get(general)!.message_retention_days).toBe(30);
    await updateStream(desdemona, { streamId: general, messageRetentionDays: 'unlimited' });
    expect(t.emulator.store.channels.get(general)!.message_retention_days).toBe(-1);
    await updateStream(desdemona, { streamId: general, messageRetentionDays: 'realm_default' });
    expect(t.emulator.store.channels.get(general)!.message_retention_days).toBeNull();
    expect((await hamlet()).map((e) => e.value)).toEqual([30, -1, null]);
    // Zulip declares the parameter Json[str] | Json[int] (zerver/views/streams.py): raw text is not JSON.
    const patch = (text: string) =>
      desdemona.request('update-stream', 'PATCH', `streams/${general}`, { message_retention_days: raw(text) });
    for (const bare of ['unlimited', 'realm_default', 'forever']) {
      const e = await caughtApiError(patch(bare));
      expect(e.message).toBe('Argument "message_retention_days" is not valid JSON.');
    }
    for (const [bad, shown] of [['"forever"', 'forever'], ['"30"', '30'], ['0', '0'], ['-5', '-5'], ['1.5', '1.5'], ['true', 'true']]) {
      const e = await caughtApiError(patch(bad!));
      expect(e.message).toBe(`Bad value for 'message_retention_days': ${shown}`);
    }
    await patch('"unlimited"');
    expect(t.emulator.store.channels.get(general)!.message_retention_days).toBe(-1);
    await patch('7');
    expect(t.emulator.store.channels.get(general)!.message_retention_days).toBe(7);
  });

  it('updates group-setting permissions with {new, old}, normalizing anonymous groups', async () => {
    const t = setup();
    const store = t.emulator.store;
    const general = t.channelId('general');
    const [mods, everyone, internet] = (['role:moderators', 'role:everyone', 'role:internet'] as const).map((g) => store.systemGroupId(g));
    const hamlet = await t.listen('hamlet');
    await updateStream(t.as('iago'), { streamId: general, canSendMessageGroup: { new: mods, old: everyone } });
    expect(store.channels.get(general)!.can_send_message_group).toBe(mods);
    expect(await hamlet()).toEqual([expect.objectContaining({ property: 'can_send_message_group', value: mods, stream_id: general })]);
    expect((await getStreamById(t.as('hamlet'), general)).stream.stream_post_policy).toBe(4);

    const stale = await caughtApiError(updateStream(t.as('iago'), { streamId: general, canSendMessageGroup: { new: everyone, old: everyone } }));
    expect(stale.message).toBe("'old' value does not match the expected value.");

    const anonymous = { direct_members: [t.userId('othello'), t.userId('hamlet')], direct_subgroups: [mods] };
    await updateStream(t.as('iago'), { streamId: general, canRemoveSubscribersGroup: { new: anonymous } });
    expect(store.channels.get(general)!.can_remove_subscribers_group).toEqual({
      direct_members: [t.userId('hamlet'), t.userId('othello')], direct_subgroups: [mods],
    });
    await updateStream(t.as('iago'), { streamId: general, canRemoveSubscribersGroup: { new: { direct_members: [], direct_subgroups: [mods] } } });
    expect(store.channels.get(general)!.can_remove_subscribers_group).toBe(mods);

    const refusals: [Parameters<typeof updateStream>[1], string][] = [
      [{ streamId: general, canSendMessageGroup: { new: internet } }, "'can_send_message_group' setting cannot be set to 'role:internet' group."],
      [{ streamId: general, canAdministerChannelGroup: { new: everyone } }, "'can_administer_channel_group' setting cannot be set to 'role:everyone' group."],
      [{ streamId: general, canSubscribeGroup: { new: 9999 } }, 'Invalid user group'],
      [{ streamId: general, canSubscribeGroup: { new: { direct_members: [9999], direct_subgroups: [] } } }, 'Invalid user ID: 9999'],
    ];
    for (const [options, msg] of refusals) expect((await caughtApiError(updateStream(t.as('iago'), options))).message).toBe(msg);
    const malformed = await caughtApiError(t.as('iago').request('update-stream', 'PATCH', `streams/${general}`, { can_subscribe_group: raw('{"old": 1}') }));
    expect(malformed.code).toBe('BAD_REQUEST');
  });

  it('validates every parameter before changing anything', async () => {
    const t = setup();
    const general = t.channelId('general');
    const before = structuredClone(t.emulator.store.channels.get(general));
    const hamlet = await t.listen('hamlet');
    await caughtApiError(updateStream(t.as('desdemona'), { streamId: general, description: 'changed', newName: 'renamed', messageRetentionDays: 5, historyPublicToSubscribers: false }));
    await caughtApiError(updateStream(t.as('desdemona'), { streamId: general, description: 'changed', canSendMessageGroup: { new: 9999 } }));
    expect(t.emulator.store.channels.get(general)).toEqual(before);
    expect(await hamlet()).toEqual([]);
  });

  it('changes archived channels\u2019 privacy at feature level 362 and later, and refuses before', async () => {
    const t = setup();
    await updateStream(t.as('desdemona'), { streamId: t.channelId('legacy'), isPrivate: true });
    expect(t.emulator.store.channels.get(t.channelId('legacy'))!.invite_only).toBe(true);
    const old = setup({ featureLevel: 361 });
    expect((await caughtApiError(updateStream(old.as('desdemona'), { streamId: old.channelId('legacy'), isPrivate: true }))).message).toBe('Invalid channel ID');
  });

  it('ignores history_public_to_subscribers alone before feature level 136', async () => {
    const t = setup({ featureLevel: 135 });
    await updateStream(t.as('iago'), { streamId: t.channelId('engineering'), historyPublicToSubscribers: true });
    expect(t.emulator.store.channels.get(t.channelId('engineering'))!.history_public_to_subscribers).toBe(false);
  });

  it('makes a channel web-public only where the server, organization and role allow it', async () => {
    const t = setup();
    await updateStream(t.as('iago'), { streamId: t.channelId('design'), isWebPublic: true });
    expect(t.emulator.store.channels.get(t.channelId('design'))!.is_web_public).toBe(true);
    await updateStream(t.as('iago'), { streamId: t.channelId('general'), canAdministerChannelGroup: { new: { direct_members: [t.userId('hamlet')], direct_subgroups: [] } } });
    expect((await caughtApiError(updateStream(t.as('hamlet'), { streamId: t.channelId('general'), isWebPublic: true }))).message).toBe('Insufficient permission');
    t.emulator.store.realm.settings.enable_spectator_access = false;
    expect((await caughtApiError(updateStream(t.as('iago'), { streamId: t.channelId('general'), isWebPublic: true }))).message).toBe(
      'Web-public channels are not enabled.',
    );
  });
});

describe('DELETE /streams/{stream_id}', () => {
  it('archives: stream delete to everyone who could see it, default status dropped, subscriptions kept', async () => {
    const t = setup();
    const announce = t.channelId('announce');
    const [polonius, hamlet] = [await t.listen('polonius'), await t.listen('hamlet')];
    const body = await archiveStream(t.as('iago'), { streamId: announce });
    expectValid('DELETE', `/streams/${announce}`, body);
    expect(t.emulator.store.channels.get(announce)!.is_archived).toBe(true);
    expect(t.emulator.store.defaultChannelIds.has(announce)).toBe(false);
    expect(t.emulator.store.isSubscribed(t.userId('hamlet'), announce)).toBe(true);
    const deleted = { type: 'stream', op: 'delete', streams: [{ stream_id: announce }], stream_ids: [announce], id: expect.any(Number) };
    expect(await hamlet()).toEqual([expect.objectContaining({ type: 'default_streams' }), deleted]);
    // A guest saw the web-public channel but not the default channel list.
    expect(await polonius()).toEqual([deleted]);
    expect(names((await getStreams(t.as('hamlet'))).streams)).not.toContain('announce');
    expect((await getStreamById(t.as('hamlet'), announce)).stream.is_archived).toBe(true);
  });

  it('refuses non-administrators, unknown IDs and already archived channels', async () => {
    const t = setup();
    expect((await caughtApiError(archiveStream(t.as('hamlet'), { streamId: t.channelId('general') }))).message).toBe(
      'You do not have permission to administer this channel.',
    );
    expect((await caughtApiError(archiveStream(t.as('iago'), { streamId: 9999 }))).message).toBe('Invalid channel ID');
    expect((await caughtApiError(archiveStream(t.as('iago'), { streamId: t.channelId('legacy') }))).message).toBe('Channel is already deactivated');
    // A channel administrator may archive.
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'temporary' }] });
    await archiveStream(t.as('hamlet'), { streamId: t.channelId('temporary') });
    expect(t.emulator.store.channels.get(t.channelId('temporary'))!.is_archived).toBe(true);
  });
});

describe('GET /users/me/{stream_id}/topics', () => {
  it('lists topics newest first, naming the empty topic by the realm\u2019s display name unless allowed', async () => {
    const t = setup();
    const general = t.channelId('general');
    const body = await getStreamTopics(t.as('hamlet'), { streamId: general });
    expect(validateResponse({ method: 'GET', path: `/users/me/${general}/topics` }, 200, body).errors).toBe('');
    const ids = [...t.emulator.store.messages.values()].filter((m) => m.stream_id === general);
    const maxOf = (topic: string) => Math.max(...ids.filter((m) => m.topic === topic).map((m) => m.id));
    expect(body.topics).toEqual([
      { name: 'greetings', max_id: maxOf('greetings') },
      { name: 'general chat', max_id: maxOf('') },
      { name: '\u2714 deploy failure', max_id: maxOf('\u2714 deploy failure') },
    ]);
    const raw = await getStreamTopics(t.as('hamlet'), { streamId: general, allowEmptyTopicName: true });
    expect(raw.topics.map((topic) => topic.name)).toEqual(['greetings', '', '\u2714 deploy failure']);
  });

  it('groups topics case-insensitively under the newest message\u2019s spelling', async () => {
    const t = setup();
    const m = insertMessage(t.emulator.store, { sender_id: t.userId('hamlet'), stream_id: t.channelId('general'), topic: 'GREETINGS', content: 'loud', timestamp: Math.floor(Date.now() / 1000) });
    const { topics } = await getStreamTopics(t.as('hamlet'), { streamId: t.channelId('general') });
    expect(topics[0]).toEqual({ name: 'GREETINGS', max_id: m.id });
    expect(topics.filter((topic) => topic.name.toLowerCase() === 'greetings')).toHaveLength(1);
  });

  it('shows only later topics in a private channel with protected history', async () => {
    const t = setup();
    const engineering = t.channelId('engineering');
    await subscribe(t.as('iago'), { subscriptions: [{ name: 'engineering' }], principals: [t.userId('cordelia')] });
    expect((await getStreamTopics(t.as('cordelia'), { streamId: engineering })).topics).toEqual([]);
    expect((await getStreamTopics(t.as('hamlet'), { streamId: engineering })).topics.map((topic) => topic.name)).toEqual(['release plan']);
    const later = insertMessage(t.emulator.store, { sender_id: t.userId('iago'), stream_id: engineering, topic: 'retro', content: 'hi', timestamp: Math.floor(Date.now() / 1000) });
    expect((await getStreamTopics(t.as('cordelia'), { streamId: engineering })).topics).toEqual([{ name: 'retro', max_id: later.id }]);
  });

  it('answers BAD_REQUEST for unknown and inaccessible channels, but lets guests read web-public ones', async () => {
    const t = setup();
    for (const [login, id] of [['hamlet', 9999], ['cordelia', t.channelId('engineering')], ['polonius', t.channelId('engineering')]] as const) {
      const e = await caughtApiError(getStreamTopics(t.as(login), { streamId: id }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid channel ID']);
      expect(validateResponse({ method: 'GET', path: '/users/me/{stream_id}/topics' }, 400, { result: 'error', msg: e.message, code: e.code }).errors).toBe('');
    }
    expect((await getStreamTopics(t.as('polonius'), { streamId: t.channelId('announce') })).topics.map((topic) => topic.name)).toEqual(['launch']);
  });
});

describe('register state', () => {
  it('lists visible channels under stream and default channel IDs under default_streams (none for guests)', async () => {
    const t = setup();
    const state = await t.as('cordelia').request<{ streams: Channel[]; realm_default_streams: number[] }>('register', 'POST', 'register', {
      fetch_event_types: json(['stream', 'default_streams']),
    });
    expect(names(state.streams)).toEqual(['announce', 'design', 'general']);
    expect(state.realm_default_streams).toEqual([t.channelId('general'), t.channelId('announce')].sort((a, b) => a - b));
    const admin = await t.as('iago').request<{ streams: Channel[] }>('register', 'POST', 'register', { fetch_event_types: json(['stream']) });
    expect(names(admin.streams)).toEqual(['announce', 'design', 'engineering', 'general', 'moderation requests']);
    const guest = await t.as('polonius').request<{ realm_default_streams: number[] }>('register', 'POST', 'register', { fetch_event_types: json(['default_streams']) });
    expect(guest.realm_default_streams).toEqual([]);
  });

  it('sends default channels as objects before feature level 330', async () => {
    const t = setup({ featureLevel: 329 });
    const state = await t.as('cordelia').request<{ realm_default_streams: Channel[] }>('register', 'POST', 'register', { fetch_event_types: json(['default_streams']) });
    expect(state.realm_default_streams.map((c) => c.name)).toEqual(['general', 'announce']);
    expect(state.realm_default_streams[0]).not.toHaveProperty('stream_weekly_traffic');
  });
});

describe('PATCH /streams/{stream_id} step by step, as update_stream_backend (zerver/views/streams.py)', () => {
  it('keeps the steps before a refusal: privacy, then default channels, then retention, then description and name', async () => {
    const t = setup();
    const store = t.emulator.store;
    const design = t.channelId('design');
    // Iago administers but does not own the organization: the privacy change is applied, the
    // retention change (owners only) refused after it.
    const retention = await caughtApiError(updateStream(t.as('iago'), { streamId: design, isPrivate: true, messageRetentionDays: 30, description: 'Later step' }));
    expect(retention.message).toBe('Must be an organization owner');
    expect(store.channels.get(design)).toMatchObject({ invite_only: true, message_retention_days: null });
    expect(store.channels.get(design)!.description).not.toBe('Later step');
    // A name already in use is refused after the description changed.
    const name = await caughtApiError(updateStream(t.as('iago'), { streamId: design, description: 'Pixels', newName: 'general' }));
    expect(name.message).toBe('Channel name already in use.');
    expect(store.channels.get(design)).toMatchObject({ description: 'Pixels', name: 'design' });
  });
});

describe('GET /get_stream_id', () => {
  it('answers the ID of a channel the caller can access, whatever the case of the name', async () => {
    const t = setup();
    const body = await getStreamId(t.as('hamlet'), { stream: 'General' });
    expectValid('GET', '/get_stream_id', body);
    expect(body.stream_id).toBe(t.channelId('general'));
    expect((await getStreamId(t.as('hamlet'), { stream: 'engineering' })).stream_id).toBe(t.channelId('engineering'));
  });

  it('answers "Invalid channel name" for an unknown channel and for a private one the caller is not in', async () => {
    const t = setup();
    for (const [who, name] of [['hamlet', 'nowhere'], ['cordelia', 'engineering'], ['polonius', 'legacy']] as const) {
      const e = await caughtApiError(getStreamId(t.as(who), { stream: name }));
      expect({ code: e.code, message: e.message }).toEqual({ code: 'BAD_REQUEST', message: `Invalid channel name '${name}'` });
    }
  });
});

describe('GET /streams/{stream_id}/email_address', () => {
  const ADDRESS = /^general\.([0-9a-f]{32})\.show-sender@[^@]+$/;

  it('answers one stable address per channel, caller and sender', async () => {
    const t = setup();
    const hamlet = t.as('hamlet');
    const streamId = t.channelId('general');
    const first = await getStreamEmailAddress(hamlet, { streamId });
    expectValid('GET', '/streams/{stream_id}/email_address', first);
    expect(first.email).toMatch(ADDRESS);
    expect((await getStreamEmailAddress(hamlet, { streamId })).email).toBe(first.email);
    const own = await getStreamEmailAddress(hamlet, { streamId, senderId: t.userId('hamlet') });
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!;
    const asBot = await getStreamEmailAddress(hamlet, { streamId, senderId: bot.user_id });
    const other = await getStreamEmailAddress(t.as('othello'), { streamId });
    expect(new Set([first.email, own.email, asBot.email, other.email]).size).toBe(4);
  });

  it('refuses a sender that is neither the caller nor a bot the caller administers', async () => {
    const t = setup();
    const streamId = t.channelId('general');
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!;
    const cases = [
      ['othello', bot.user_id, 'Insufficient permission'],
      ['hamlet', t.userId('othello'), 'No such bot'],
      ['hamlet', 99999, 'No such bot'],
    ] as const;
    for (const [who, senderId, message] of cases) {
      const e = await caughtApiError(getStreamEmailAddress(t.as(who), { streamId, senderId }));
      expect({ code: e.code, message: e.message }).toEqual({ code: 'BAD_REQUEST', message });
    }
    // An administrator may post as any bot.
    expect((await getStreamEmailAddress(t.as('iago'), { streamId, senderId: bot.user_id })).email).toMatch(ADDRESS);
  });

  it('answers "Invalid channel ID" for a private channel the caller is not in', async () => {
    const t = setup();
    const e = await caughtApiError(getStreamEmailAddress(t.as('cordelia'), { streamId: t.channelId('engineering') }));
    expect({ code: e.code, message: e.message }).toEqual({ code: 'BAD_REQUEST', message: 'Invalid channel ID' });
  });
});
