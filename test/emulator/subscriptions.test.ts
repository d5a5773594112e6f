/**
 * Subscriptions in the emulator, driven through the REST client (src/zulip/routes/subscriptions.ts):
 * listing, subscribing (with channel creation), unsubscribing (who may remove whom), personal
 * settings, subscriber lists, the `subscription` register state, and the events each change sends.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { Subscription } from '../../src/zulip/model/subscriptions.js';
import { json, raw } from '../../src/zulip/params.js';
import { updateStream } from '../../src/zulip/routes/channels.js';
import {
  getSubscribers,
  getSubscriptions,
  getSubscriptionStatus,
  subscribe,
  unsubscribe,
  updateSubscriptionSettings,
} from '../../src/zulip/routes/subscriptions.js';
import { caughtApiError, expectValidResponse, NEWER_CHANNEL_FIELDS, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';

/** The demo organization; `listen` registers for channel and subscription events by default. */
function setup(settings: Partial<EmulatorSettings> = {}) {
  return setupEmulator({ settings, eventTypes: ['stream', 'subscription'] });
}

function expectValid(method: string, path: string, body: unknown): void {
  expectValidResponse(method, path, body, NEWER_CHANNEL_FIELDS);
}

describe('GET /users/me/subscriptions', () => {
  it('lists the caller\u2019s active subscriptions by name, with inherited settings as null', async () => {
    const t = setup();
    const body = await getSubscriptions(t.as('hamlet'));
    expectValid('GET', '/users/me/subscriptions', body);
    expect(body.subscriptions.map((s) => s.name)).toEqual(['announce', 'design', 'engineering', 'general']);
    const general = body.subscriptions.find((s) => s.name === 'general')!;
    expect(general).toMatchObject({
      stream_id: t.channelId('general'),
      is_muted: false,
      in_home_view: true,
      pin_to_top: false,
      desktop_notifications: null,
      email_notifications: null,
      push_notifications: null,
      audible_notifications: null,
      wildcard_mentions_notify: null,
      invite_only: false,
      stream_post_policy: 1,
    });
    expect(general.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(general).not.toHaveProperty('subscribers');
    // Archived channels are left out (othello is subscribed to the archived legacy channel).
    expect((await getSubscriptions(t.as('othello'))).subscriptions.map((s) => s.name)).not.toContain('legacy');
  });

  it('adds active subscribers with include_subscribers', async () => {
    const t = setup();
    const body = await getSubscriptions(t.as('hamlet'), { includeSubscribers: true });
    expectValid('GET', '/users/me/subscriptions', body);
    const engineering = body.subscriptions.find((s) => s.name === 'engineering')!;
    expect(engineering.subscribers).toEqual(['desdemona', 'iago', 'shiva', 'hamlet'].map(t.userId).sort((a, b) => a - b));
  });
});

describe('POST /users/me/subscriptions', () => {
  it('creates a missing channel with Zulip\u2019s defaults and subscribes the caller', async () => {
    const t = setup();
    const [hamlet, othello, polonius] = [await t.listen('hamlet'), await t.listen('othello'), await t.listen('polonius')];
    const body = await subscribe(t.as('hamlet'), { subscriptions: [{ name: ' plays ', description: 'Scripts\nand more', color: '#112233' }] });
    expectValid('POST', '/users/me/subscriptions', body);
    expect(body).toEqual({ result: 'success', msg: '', subscribed: { [t.userId('hamlet')]: ['plays'] }, already_subscribed: {} });
    const store = t.emulator.store;
    const plays = store.channels.get(t.channelId('plays'))!;
    expect(plays).toMatchObject({
      description: 'Scripts and more',
      creator_id: t.userId('hamlet'),
      invite_only: false,
      history_public_to_subscribers: true,
      can_administer_channel_group: { direct_members: [t.userId('hamlet')], direct_subgroups: [] },
      can_subscribe_group: store.systemGroupId('role:nobody'),
      can_send_message_group: store.systemGroupId('role:everyone'),
    });
    expect(store.subscription(plays.stream_id, t.userId('hamlet'))?.color).toBe('#112233');

    const hamletEvents = await hamlet();
    expect(hamletEvents.map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    const added = (hamletEvents[1]!.subscriptions as Subscription[])[0]!;
    expect(added).toMatchObject({ name: 'plays', color: '#112233', subscribers: [t.userId('hamlet')], in_home_view: true, desktop_notifications: null });
    // Other members learn about the channel and its first subscriber; a guest learns nothing.
    expect(await othello()).toEqual([
      expect.objectContaining({ type: 'stream', op: 'create' }),
      { type: 'subscription', op: 'peer_add', stream_ids: [plays.stream_id], user_ids: [t.userId('hamlet')], id: expect.any(Number) },
    ]);
    expect(await polonius()).toEqual([]);
  });

  it('subscribes to existing channels, reports already_subscribed, and sends peer_add to the others', async () => {
    const t = setup();
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'plays' }] });
    const hamlet = await t.listen('hamlet');
    const body = await subscribe(t.as('othello'), { subscriptions: [{ name: 'plays' }, { name: 'general' }] });
    expect(body.subscribed).toEqual({ [t.userId('othello')]: ['plays'] });
    expect(body.already_subscribed).toEqual({ [t.userId('othello')]: ['general'] });
    expect(await hamlet()).toEqual([
      { type: 'subscription', op: 'peer_add', stream_ids: [t.channelId('plays')], user_ids: [t.userId('othello')], id: expect.any(Number) },
    ]);
  });

  it('subscribes others by ID or by email, keyed by user ID (by email before feature level 289)', async () => {
    const t = setup();
    const othelloEvents = await t.listen('othello');
    const byId = await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'plays' }], principals: [t.userId('othello'), t.userId('hamlet')] });
    expect(byId.subscribed).toEqual({ [t.userId('othello')]: ['plays'], [t.userId('hamlet')]: ['plays'] });
    expect((await othelloEvents()).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    const byEmail = await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'plays' }], principals: [demoUser('cordelia').email] });
    expect(byEmail.subscribed).toEqual({ [t.userId('cordelia')]: ['plays'] });

    const old = setup({ featureLevel: 288 });
    const legacy = await subscribe(old.as('hamlet'), { subscriptions: [{ name: 'plays' }] });
    expect(legacy.subscribed).toEqual({ [demoUser('hamlet').email]: ['plays'] });
  });

  it('rejects an unknown or deactivated principal with 400 BAD_REQUEST (403 UNAUTHORIZED_PRINCIPAL before feature level 208)', async () => {
    const t = setup();
    const lear = [...t.emulator.store.users.values()].find((u) => !u.is_active)!;
    for (const principals of [[9999], [lear.user_id], ['ghost@zulip.example.com']] as (number[] | string[])[]) {
      const e = await caughtApiError(subscribe(t.as('hamlet'), { subscriptions: [{ name: 'plays' }], principals }));
      expect([e.code, e.httpStatus]).toEqual(['BAD_REQUEST', 400]);
    }
    // Nothing was created by the refused calls.
    expect(t.emulator.store.channelByName('plays')).toBeUndefined();
    const old = setup({ featureLevel: 207 });
    const e = await caughtApiError(subscribe(old.as('hamlet'), { subscriptions: [{ name: 'plays' }], principals: [9999] }));
    expect([e.code, e.httpStatus, e.data.principal]).toEqual(['UNAUTHORIZED_PRINCIPAL', 403, 9999]);
  });

  it('refuses private channels the caller cannot join, or lists them with authorization_errors_fatal=false', async () => {
    const t = setup();
    const e = await caughtApiError(subscribe(t.as('cordelia'), { subscriptions: [{ name: 'engineering' }, { name: 'plays' }] }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Unable to access channel (engineering).']);
    expect(t.emulator.store.channelByName('plays')).toBeUndefined();
    const lenient = await subscribe(t.as('cordelia'), { subscriptions: [{ name: 'engineering' }, { name: 'design' }], authorizationErrorsFatal: false });
    expectValid('POST', '/users/me/subscriptions', lenient);
    expect(lenient).toMatchObject({ subscribed: {}, already_subscribed: { [t.userId('cordelia')]: ['design'] }, unauthorized: ['engineering'] });
    // Even an administrator cannot join a private channel without being invited or allowed.
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'hidden' }], inviteOnly: true });
    expect((await caughtApiError(subscribe(t.as('desdemona'), { subscriptions: [{ name: 'hidden' }] }))).message).toBe('Unable to access channel (hidden).');
    // can_subscribe_group opens it.
    await updateStream(t.as('iago'), { streamId: t.channelId('engineering'), canSubscribeGroup: { new: { direct_members: [t.userId('cordelia')], direct_subgroups: [] } } });
    const joined = await subscribe(t.as('cordelia'), { subscriptions: [{ name: 'engineering' }] });
    expect(joined.subscribed).toEqual({ [t.userId('cordelia')]: ['engineering'] });
  });

  it('gives a new subscriber of a private channel stream create before subscription add; admins already knew it', async () => {
    const t = setup();
    const [cordelia, iago] = [await t.listen('cordelia'), await t.listen('iago')];
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'engineering' }], principals: [t.userId('cordelia')] });
    expect((await cordelia()).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    expect(await iago()).toEqual([
      { type: 'subscription', op: 'peer_add', stream_ids: [t.channelId('engineering')], user_ids: [t.userId('cordelia')], id: expect.any(Number) },
    ]);
  });

  it('creates private, web-public and default channels only as the rules allow', async () => {
    const t = setup();
    const [cordelia, iago] = [await t.listen('cordelia'), await t.listen('iago')];
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'hidden' }], inviteOnly: true });
    expect(t.emulator.store.channelByName('hidden')).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
    // Private channels are announced to administrators and subscribers only.
    expect(await cordelia()).toEqual([]);
    expect((await iago()).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/peer_add']);
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'shared-hidden' }], inviteOnly: true, historyPublicToSubscribers: true });
    expect(t.emulator.store.channelByName('shared-hidden')!.history_public_to_subscribers).toBe(true);

    const refusals: [string, Parameters<typeof subscribe>[1], string][] = [
      ['hamlet', { subscriptions: [{ name: 'web' }], isWebPublic: true }, 'Insufficient permission'],
      ['hamlet', { subscriptions: [{ name: 'dflt' }], isDefaultStream: true }, 'Insufficient permission'],
      ['iago', { subscriptions: [{ name: 'dflt' }], isDefaultStream: true, inviteOnly: true }, 'A default channel cannot be private.'],
      ['iago', { subscriptions: [{ name: 'web' }], isWebPublic: true, inviteOnly: true }, 'Invalid parameters'],
      ['iago', { subscriptions: [{ name: 'kept' }], messageRetentionDays: 10 }, 'Must be an organization owner'],
      ['polonius', { subscriptions: [{ name: 'general' }] }, 'Not allowed for guest users'],
      ['hamlet', { subscriptions: [{ name: '' }] }, "Channel name can't be empty."],
      ['hamlet', { subscriptions: [{ name: 'x'.repeat(61) }] }, 'Channel name too long (limit: 60 characters).'],
      ['hamlet', { subscriptions: [{ name: 'tab\there' }] }, 'Invalid character in channel name, at position 4.'],
      ['hamlet', { subscriptions: [{ name: 'colored', color: 'red' }] }, 'add.color is not a valid hex color code'],
      ['hamlet', { subscriptions: [{ name: 'g', canSubscribeGroup: 9999 } as never] }, 'subscriptions[0] has an unexpected key: canSubscribeGroup'],
      ['hamlet', { subscriptions: [{ name: 'g' }], canAdministerChannelGroup: 9999 }, 'Invalid user group'],
    ];
    for (const [login, options, msg] of refusals) {
      const e = await caughtApiError(subscribe(t.as(login), options));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', msg]);
    }
    expect(['web', 'dflt', 'kept', 'colored', 'g'].map((n) => t.emulator.store.channelByName(n))).toEqual([undefined, undefined, undefined, undefined, undefined]);

    await subscribe(t.as('shiva'), { subscriptions: [{ name: 'web' }], isWebPublic: true });
    expect(t.emulator.store.channelByName('web')!.is_web_public).toBe(true);
    await subscribe(t.as('iago'), { subscriptions: [{ name: 'dflt' }], isDefaultStream: true });
    expect(t.emulator.store.defaultChannelIds.has(t.channelId('dflt'))).toBe(true);
    await subscribe(t.as('desdemona'), { subscriptions: [{ name: 'kept' }], messageRetentionDays: 'unlimited' });
    expect(t.emulator.store.channelByName('kept')!.message_retention_days).toBe(-1);
  });

  it('reads message_retention_days as JSON, as Zulip\'s Json[str] | Json[int] (zerver/views/streams.py)', async () => {
    const t = setup();
    const desdemona = t.as('desdemona');
    const create = (name: string, retention: string) =>
      desdemona.request('subscribe', 'POST', 'users/me/subscriptions', {
        subscriptions: json([{ name }]),
        message_retention_days: raw(retention),
      });
    const bare = await caughtApiError(create('bare', 'unlimited'));
    expect(bare.message).toBe('Argument "message_retention_days" is not valid JSON.');
    expect(t.emulator.store.channelByName('bare')).toBeUndefined();
    const text = await caughtApiError(create('text', '"14"'));
    expect(text.message).toBe("Bad value for 'message_retention_days': 14");
    await create('forever', '"unlimited"');
    expect(t.emulator.store.channelByName('forever')!.message_retention_days).toBe(-1);
    await create('inherit', '"realm_default"');
    expect(t.emulator.store.channelByName('inherit')!.message_retention_days).toBeNull();
    await create('fortnight', '14');
    expect(t.emulator.store.channelByName('fortnight')!.message_retention_days).toBe(14);
  });

  it('restores the personal settings of a former subscription when subscribing again', async () => {
    const t = setup();
    const design = t.channelId('design');
    await updateSubscriptionSettings(t.as('hamlet'), { subscriptionData: [{ streamId: design, property: 'color', value: '#abcdef' }, { streamId: design, property: 'pin_to_top', value: true }] });
    await unsubscribe(t.as('hamlet'), { subscriptions: ['design'] });
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'design' }] });
    expect(t.emulator.store.subscription(design, t.userId('hamlet'))).toMatchObject({ color: '#abcdef', pin_to_top: true });
  });
});

describe('DELETE /users/me/subscriptions', () => {
  it('unsubscribes the caller: removed, not_removed, remove event and peer_remove to the others', async () => {
    const t = setup();
    const [hamlet, othello, polonius] = [await t.listen('hamlet'), await t.listen('othello'), await t.listen('polonius')];
    await unsubscribe(t.as('hamlet'), { subscriptions: ['design'] });
    const body = await unsubscribe(t.as('hamlet'), { subscriptions: ['design', 'general'] });
    expectValid('DELETE', '/users/me/subscriptions', body);
    expect(body).toMatchObject({ removed: ['general'], not_removed: ['design'] });
    expect(t.emulator.store.isSubscribed(t.userId('hamlet'), t.channelId('design'))).toBe(false);
    expect(await hamlet()).toEqual([
      { type: 'subscription', op: 'remove', subscriptions: [{ name: 'design', stream_id: t.channelId('design') }], id: expect.any(Number) },
      { type: 'subscription', op: 'remove', subscriptions: [{ name: 'general', stream_id: t.channelId('general') }], id: expect.any(Number) },
    ]);
    const peerRemove = (name: string) => ({ type: 'subscription', op: 'peer_remove', stream_ids: [t.channelId(name)], user_ids: [t.userId('hamlet')], id: expect.any(Number) });
    expect(await othello()).toEqual([peerRemove('design'), peerRemove('general')]);
    // The guest is subscribed to both public channels, so sees their subscribers too.
    expect(await polonius()).toEqual([peerRemove('design'), peerRemove('general')]);
  });

  it('sends stream delete to a member who leaves a private channel, but not to administrators', async () => {
    const t = setup();
    const [hamlet, cordelia] = [await t.listen('hamlet'), await t.listen('cordelia')];
    await unsubscribe(t.as('hamlet'), { subscriptions: ['engineering'] });
    expect((await hamlet()).map((e) => `${e.type}/${e.op}`)).toEqual(['subscription/remove', 'stream/delete']);
    expect(await cordelia()).toEqual([]);
    await unsubscribe(t.as('iago'), { subscriptions: ['engineering'] });
    expect(await t.as('iago').request<{ streams: { name: string }[] }>('register', 'POST', 'register', { fetch_event_types: json(['stream']) }))
      .toMatchObject({ streams: expect.arrayContaining([expect.objectContaining({ name: 'engineering' })]) });
  });

  it('answers STREAM_DOES_NOT_EXIST with the name for an unknown channel (and archived ones before feature level 362)', async () => {
    const t = setup();
    const e = await caughtApiError(unsubscribe(t.as('hamlet'), { subscriptions: ['general', 'nowhere'] }));
    expect([e.code, e.message, e.data.stream, e.httpStatus]).toEqual(['STREAM_DOES_NOT_EXIST', "Channel 'nowhere' does not exist", 'nowhere', 400]);
    expect(validateResponse({ method: 'DELETE', path: '/users/me/subscriptions' }, 400, { result: 'error', msg: e.message, code: e.code, stream: 'nowhere' }).errors).toBe('');
    expect(t.emulator.store.isSubscribed(t.userId('hamlet'), t.channelId('general'))).toBe(true);
    expect((await unsubscribe(t.as('othello'), { subscriptions: ['legacy'] })).removed).toEqual(['legacy']);
    const old = setup({ featureLevel: 361 });
    expect((await caughtApiError(unsubscribe(old.as('othello'), { subscriptions: ['legacy'] }))).code).toBe('STREAM_DOES_NOT_EXIST');
  });

  it('lets administrators, owners of a bot and can_remove_subscribers_group remove others, and nobody else', async () => {
    const t = setup();
    const othello = t.userId('othello');
    const refused = await caughtApiError(unsubscribe(t.as('hamlet'), { subscriptions: ['design'], principals: [othello] }));
    expect([refused.code, refused.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    expect((await unsubscribe(t.as('iago'), { subscriptions: ['design'], principals: [othello] })).removed).toEqual(['design']);
    // Hamlet owns the bot, so may remove it without any permission.
    const bot = t.userId('hamlet-bot@zulip.example.com');
    expect((await unsubscribe(t.as('hamlet'), { subscriptions: ['general'], principals: [bot] })).removed).toEqual(['general']);
    await updateStream(t.as('iago'), { streamId: t.channelId('general'), canRemoveSubscribersGroup: { new: { direct_members: [t.userId('hamlet')], direct_subgroups: [] } } });
    const body = await unsubscribe(t.as('hamlet'), { subscriptions: ['general'], principals: [demoUser('othello').email, demoUser('cordelia').email] });
    expect(body).toMatchObject({ removed: ['general', 'general'], not_removed: [] });
    // The group does not reach a private channel the member cannot see.
    await updateStream(t.as('desdemona'), { streamId: t.channelId('engineering'), canRemoveSubscribersGroup: { new: { direct_members: [t.userId('cordelia')], direct_subgroups: [] } } });
    expect((await caughtApiError(unsubscribe(t.as('cordelia'), { subscriptions: ['engineering'], principals: [t.userId('hamlet')] }))).message).toBe('Insufficient permission');
  });

  it('rejects unknown and deactivated principals with 400 BAD_REQUEST', async () => {
    const t = setup();
    const lear = [...t.emulator.store.users.values()].find((u) => !u.is_active)!;
    for (const principals of [[9999], [lear.user_id], ['nobody@zulip.example.com']] as (number[] | string[])[]) {
      const e = await caughtApiError(unsubscribe(t.as('iago'), { subscriptions: ['legacy'], principals }));
      expect([e.code, e.httpStatus]).toEqual(['BAD_REQUEST', 400]);
    }
    const mixed = await caughtApiError(t.as('iago').request('unsubscribe', 'DELETE', 'users/me/subscriptions', { subscriptions: raw('["general"]'), principals: raw('[1, "a@b.c"]') }));
    expect(mixed.code).toBe('BAD_REQUEST');
  });
});

describe('POST /users/me/subscriptions/properties', () => {
  it('changes personal settings with one update event each, and two for muting', async () => {
    const t = setup();
    const design = t.channelId('design');
    const hamlet = await t.listen('hamlet');
    const body = await updateSubscriptionSettings(t.as('hamlet'), {
      subscriptionData: [
        { streamId: design, property: 'color', value: '#00ff00' },
        { streamId: design, property: 'is_muted', value: true },
        { streamId: design, property: 'desktop_notifications', value: false },
        { streamId: design, property: 'in_home_view', value: true },
      ],
    });
    expect(validateResponse({ method: 'POST', path: '/users/me/subscriptions/properties' }, 200, body).errors).toBe('');
    expect(t.emulator.store.subscription(design, t.userId('hamlet'))).toMatchObject({ color: '#00ff00', is_muted: false, desktop_notifications: false });
    const update = (property: string, value: unknown) => ({ type: 'subscription', op: 'update', stream_id: design, property, value, id: expect.any(Number) });
    expect(await hamlet()).toEqual([
      update('color', '#00ff00'),
      update('in_home_view', false),
      update('is_muted', true),
      update('desktop_notifications', false),
      update('in_home_view', true),
      update('is_muted', false),
    ]);
  });

  it('refuses a malformed batch whole, but applies the entries before a channel it cannot change', async () => {
    const t = setup();
    const design = t.channelId('design');
    const send = (change: Record<string, unknown>) =>
      caughtApiError(
        t.as('cordelia').request('update-subscription-settings', 'POST', 'users/me/subscriptions/properties', {
          subscription_data: json([{ stream_id: design, property: 'pin_to_top', value: true }, change]),
        }),
      );
    // The list is parsed whole before anything changes (typed_endpoint).
    const malformed: [Record<string, unknown>, string][] = [
      [{ stream_id: design, property: 'volume', value: true }, 'Unknown subscription property: volume'],
      [{ stream_id: design, property: 'pin_to_top', value: 'yes' }, 'pin_to_top is not a boolean'],
      [{ stream_id: design, property: 'color', value: 'green' }, 'color is not a valid hex color code'],
    ];
    for (const [change, msg] of malformed) {
      const error = await send(change);
      expect([error.code, error.message]).toEqual(['BAD_REQUEST', msg]);
    }
    expect(t.emulator.store.subscription(design, t.userId('cordelia'))!.pin_to_top).toBe(false);
    // Channels are accessed entry by entry (update_subscription_properties_backend has no
    // transaction): the first entry stays applied.
    for (const streamId of [9999, t.channelId('engineering')]) {
      const error = await send({ stream_id: streamId, property: 'pin_to_top', value: true });
      expect([error.code, error.message]).toEqual(['BAD_REQUEST', 'Invalid channel ID']);
    }
    expect(t.emulator.store.subscription(design, t.userId('cordelia'))!.pin_to_top).toBe(true);
    await unsubscribe(t.as('othello'), { subscriptions: ['general'] });
    const notSubscribed = await caughtApiError(updateSubscriptionSettings(t.as('othello'), { subscriptionData: [{ streamId: t.channelId('general'), property: 'pin_to_top', value: true }] }));
    expect(notSubscribed.message).toBe(`Not subscribed to channel ID ${t.channelId('general')}`);
  });

  it('is POST only', async () => {
    const e = await caughtApiError(setup().as('hamlet').request('x', 'PATCH', 'users/me/subscriptions/properties', { subscription_data: raw('[]') }));
    expect(e.httpStatus).toBe(405);
  });
});

describe('subscriber lists', () => {
  it('GET /streams/{id}/members and GET /users/{id}/subscriptions/{stream_id}', async () => {
    const t = setup();
    const members = await getSubscribers(t.as('iago'), { streamId: t.channelId('engineering') });
    expect(members.subscribers).toEqual(['desdemona', 'iago', 'shiva', 'hamlet'].map(t.userId).sort((a, b) => a - b));
    expect((await caughtApiError(getSubscribers(t.as('cordelia'), { streamId: t.channelId('engineering') }))).message).toBe('Invalid channel ID');
    expect(await getSubscriptionStatus(t.as('cordelia'), { userId: t.userId('hamlet'), streamId: t.channelId('design') })).toMatchObject({ is_subscribed: true });
    expect(await getSubscriptionStatus(t.as('cordelia'), { userId: t.userId('polonius'), streamId: t.channelId('announce') })).toMatchObject({ is_subscribed: false });
    expect((await caughtApiError(getSubscriptionStatus(t.as('cordelia'), { userId: 9999, streamId: t.channelId('design') }))).message).toBe('No such user');
  });
});

describe('register state', () => {
  type State = { subscriptions: Subscription[]; unsubscribed: Subscription[]; never_subscribed: (Subscription & { subscribers?: number[] })[] };

  it('splits channels into subscriptions, unsubscribed and never_subscribed', async () => {
    const t = setup();
    await unsubscribe(t.as('cordelia'), { subscriptions: ['design'] });
    const state = await t.as('cordelia').request<State>('register', 'POST', 'register', {
      fetch_event_types: json(['subscription']),
      client_capabilities: json({ notification_settings_null: true }),
    });
    expect(state.subscriptions.map((s) => s.name)).toEqual(['announce', 'general']);
    expect(state.unsubscribed.map((s) => s.name)).toEqual(['design']);
    expect(state.never_subscribed.map((s) => s.name)).toEqual([]);
    expect(state.subscriptions[0]).not.toHaveProperty('subscribers');
    expect(state.subscriptions[0]!.desktop_notifications).toBeNull();
    const admin = await t.as('iago').request<State>('register', 'POST', 'register', { fetch_event_types: json(['subscription']), include_subscribers: json(true) });
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'hidden' }], inviteOnly: true });
    const later = await t.as('iago').request<State>('register', 'POST', 'register', { fetch_event_types: json(['subscription']), include_subscribers: json(true) });
    expect(admin.never_subscribed.map((s) => s.name)).toEqual([]);
    expect(later.never_subscribed.map((s) => s.name)).toEqual(['hidden']);
    expect(later.never_subscribed[0]!.subscribers).toEqual([t.userId('hamlet')]);
    expect(later.subscriptions.find((s) => s.name === 'general')!.subscribers).toContain(t.userId('polonius'));
  });

  it('fills in the user\u2019s notification defaults without notification_settings_null', async () => {
    const t = setup();
    t.emulator.store.users.get(t.userId('hamlet'))!.settings.enable_stream_push_notifications = true;
    await updateSubscriptionSettings(t.as('hamlet'), { subscriptionData: [{ streamId: t.channelId('general'), property: 'email_notifications', value: true }] });
    const state = await t.as('hamlet').request<State>('register', 'POST', 'register', { fetch_event_types: json(['subscription']) });
    expect(state.subscriptions.find((s) => s.name === 'general')).toMatchObject({
      desktop_notifications: false,
      email_notifications: true,
      push_notifications: true,
      audible_notifications: false,
      wildcard_mentions_notify: true,
    });
  });

  it('includes archived channels only for clients with the archived_channels capability', async () => {
    const t = setup();
    const plain = await t.as('othello').request<State>('register', 'POST', 'register', { fetch_event_types: json(['subscription']) });
    expect(plain.subscriptions.map((s) => s.name)).not.toContain('legacy');
    const aware = await t.as('othello').request<State>('register', 'POST', 'register', {
      fetch_event_types: json(['subscription']),
      client_capabilities: json({ notification_settings_null: true, archived_channels: true }),
    });
    expect(aware.subscriptions.find((s) => s.name === 'legacy')?.is_archived).toBe(true);
  });
});
