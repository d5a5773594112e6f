/**
 * Personal settings in the emulator, driven through the REST client: every setting kind and its
 * validation, account fields (name, email, password), ignored parameters, all-or-nothing updates,
 * drafts deletion, the deprecated aliases, the events (modern and legacy) and the register state.
 */
import { describe, expect, it } from 'vitest';
import { initialPassword } from '../../src/emulator/routes/settings.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { RawEvent } from '../../src/zulip/model/events.js';
import { getEvents, registerQueue } from '../../src/zulip/routes/events.js';
import {
  updateDisplaySettings,
  updateNotificationSettings,
  updateSettings,
  type UpdateSettingsOptions,
} from '../../src/zulip/routes/settings.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

/** user_settings keys newer than the OpenAPI file (feature level 247). */
const NEWER_SETTINGS = [
  'web_channel_default_view',
  'receives_typing_notifications',
  'web_suggest_update_timezone',
  'web_animate_image_previews',
  'hide_ai_features',
  'presence_last_update_id',
  'realm_empty_topic_display_name',
];

function setup() {
  const t = setupEmulator();
  const { as } = t;
  /** A queue of `login` and a function returning the events it got since the last call. */
  async function queue(login: string, modern = true) {
    const { queue_id } = await registerQueue(as(login), {
      eventTypes: ['user_settings', 'update_display_settings', 'update_global_notifications', 'realm_user', 'drafts'],
      clientCapabilities: { notification_settings_null: true, user_settings_object: modern },
    });
    let last = -1;
    return async (): Promise<Omit<RawEvent, 'id'>[]> => {
      const { events } = await getEvents(as(login), { queueId: queue_id!, lastEventId: last, dontBlock: true });
      if (events.length > 0) last = events.at(-1)!.id;
      return events.map(({ id: _id, ...rest }) => rest);
    };
  }
  return { ...t, queue };
}

describe('PATCH /settings', () => {
  it('changes settings of every kind and answers a documented success', async () => {
    const { as, user } = setup();
    const body = await updateSettings(as('hamlet'), {
      colorScheme: 2,
      twentyFourHourTime: true,
      webHomeView: 'recent_topics',
      emojiset: 'google-blob',
      webFontSizePx: 18,
      webAnimateImagePreviews: 'always',
      webChannelDefaultView: 2,
      notificationSound: 'ding',
      emailNotificationsBatchingPeriodSeconds: 300,
      enterSends: true,
    });
    expect(validateResponse({ method: 'patch', path: '/settings' }, 200, body)).toEqual({ valid: true, errors: '' });
    expect(body).toEqual({ result: 'success', msg: '' });
    expect(user('hamlet').settings).toMatchObject({
      color_scheme: 2,
      twenty_four_hour_time: true,
      web_home_view: 'recent_topics',
      emojiset: 'google-blob',
      web_font_size_px: 18,
      web_animate_image_previews: 'always',
      web_channel_default_view: 2,
      notification_sound: 'ding',
      email_notifications_batching_period_seconds: 300,
      enter_sends: true,
    });
  });

  it('reports unchanged and unsupported parameters in ignored_parameters_unsupported, in request order', async () => {
    const { as, user } = setup();
    const hamlet = user('hamlet');
    const body = await updateSettings(as('hamlet'), {
      colorScheme: 1, // already automatic
      highContrastMode: true,
      fullName: hamlet.full_name,
      email: hamlet.delivery_email,
    });
    // The binding sends parameters in the operation table's order: full_name and email come first.
    expect(body.ignored_parameters_unsupported).toEqual(['full_name', 'email', 'color_scheme']);
    expect(validateResponse({ method: 'patch', path: '/settings' }, 200, body)).toEqual({ valid: true, errors: '' });
    const unknown = await as('hamlet').request<Record<string, unknown>>('update-settings', 'PATCH', 'settings', {
      dense_mode: json(true),
      left_side_userlist: json(true),
      bogus: json(1),
    });
    expect(unknown.ignored_parameters_unsupported).toEqual(['dense_mode', 'bogus']);
    expect(hamlet.settings.left_side_userlist).toBe(true);
  });

  it('validates types and enumerations', async () => {
    const { as } = setup();
    const cases: [WireParams, string][] = [
      [{ color_scheme: json(7) }, 'Invalid color_scheme'],
      [{ color_scheme: raw('dark') }, 'color_scheme is not an integer'],
      [{ web_channel_default_view: json(3) }, 'Invalid web_channel_default_view'],
      [{ demote_inactive_streams: json(0) }, 'Invalid demote_inactive_streams'],
      [{ user_list_style: json(4) }, 'Invalid user_list_style'],
      [{ web_stream_unreads_count_display_policy: json(9) }, 'Invalid web_stream_unreads_count_display_policy'],
      [{ emojiset: raw('apple') }, 'Invalid emojiset'],
      [{ web_home_view: raw('home') }, 'Invalid web_home_view'],
      [{ web_animate_image_previews: raw('sometimes') }, 'Invalid web_animate_image_previews'],
      [{ twenty_four_hour_time: raw('yes') }, 'twenty_four_hour_time is not a boolean'],
      [{ web_font_size_px: raw('big') }, 'web_font_size_px is not an integer'],
      [{ default_language: raw('xx') }, 'Invalid default_language'],
      [{ timezone: raw('Mars/Olympus_Mons') }, 'Not a recognized time zone'],
      [{ timezone: raw('+01:00') }, 'Not a recognized time zone'],
      [{ notification_sound: raw('gong') }, "Invalid notification sound 'gong'"],
      [{ email_notifications_batching_period_seconds: json(0) }, 'Invalid email batching period: 0 seconds'],
      [{ email_notifications_batching_period_seconds: json(7 * 86400 + 1) }, `Invalid email batching period: ${7 * 86400 + 1} seconds`],
    ];
    for (const [params, message] of cases) {
      const e = await caughtApiError(as('hamlet').request('update-settings', 'PATCH', 'settings', params));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, message]);
    }
  });

  it('accepts IANA zones, aliases included, and "none" as a notification sound', async () => {
    const { as, user } = setup();
    await updateSettings(as('hamlet'), { timezone: 'Asia/Kolkata', notificationSound: 'none' });
    expect(user('hamlet').timezone).toBe('Asia/Kolkata');
    await updateSettings(as('hamlet'), { timezone: 'UTC' });
    expect(user('hamlet').timezone).toBe('UTC');
  });

  it('applies nothing when any parameter is invalid', async () => {
    const { as, user, queue } = setup();
    const events = await queue('hamlet');
    const before = { ...user('hamlet').settings };
    const e = await caughtApiError(
      updateSettings(as('hamlet'), { colorScheme: 2, fullName: 'Prince Hamlet', emojiset: 'apple' as 'google' }),
    );
    expect(e.message).toBe('Invalid emojiset');
    expect(user('hamlet').settings).toEqual(before);
    expect(user('hamlet').full_name).toBe('King Hamlet');
    expect(await events()).toEqual([]);
  });

  it('changes the full name, validating its length and characters, and tells everyone who can access the user', async () => {
    const { as, user, queue } = setup();
    const mine = await queue('hamlet');
    const iagos = await queue('iago');
    await updateSettings(as('hamlet'), { fullName: '  Prince Hamlet  ' });
    expect(user('hamlet').full_name).toBe('Prince Hamlet');
    const event = { type: 'realm_user', op: 'update', person: { user_id: user('hamlet').user_id, full_name: 'Prince Hamlet' } };
    expect(await mine()).toEqual([event]);
    expect(await iagos()).toEqual([event]);
    for (const [name, message] of [
      ['x'.repeat(101), 'Name too long!'],
      [' a ', 'Name too short!'],
      ['Ham*let', 'Invalid characters in name!'],
      ['Hamlet|12', 'Invalid format!'],
    ]) {
      const e = await caughtApiError(updateSettings(as('hamlet'), { fullName: name }));
      expect(e.message).toBe(message);
    }
    await updateSettings(as('hamlet'), { fullName: 'x'.repeat(100) });
    expect(user('hamlet').full_name).toHaveLength(100);
  });

  it('starts an email change without changing anything, and rejects invalid or taken addresses', async () => {
    const { as, user, queue } = setup();
    const events = await queue('hamlet');
    const body = await updateSettings(as('hamlet'), { email: 'prince@zulip.example.com' });
    expect(body).toEqual({ result: 'success', msg: '' });
    expect(user('hamlet').delivery_email).toBe(demoUser('hamlet').email);
    expect(await events()).toEqual([]);
    expect((await caughtApiError(updateSettings(as('hamlet'), { email: 'not an address' }))).message).toBe('Invalid address.');
    expect((await caughtApiError(updateSettings(as('hamlet'), { email: demoUser('iago').email }))).message).toBe('Already has an account.');
    expect((await caughtApiError(updateSettings(as('hamlet'), { email: 'lear@zulip.example.com' }))).message).toBe('Account has been deactivated.');
  });

  it('changes the password only with the right old password', async () => {
    const { as } = setup();
    const old = initialPassword(demoUser('hamlet').email);
    const missing = await caughtApiError(updateSettings(as('hamlet'), { newPassword: 'new-secret-1' }));
    expect([missing.code, missing.message]).toEqual(['REQUEST_VARIABLE_MISSING', "Missing 'old_password' argument"]);
    const wrong = await caughtApiError(updateSettings(as('hamlet'), { oldPassword: 'guess', newPassword: 'new-secret-1' }));
    expect([wrong.code, wrong.message]).toEqual(['BAD_REQUEST', 'Wrong password!']);
    const weak = await caughtApiError(updateSettings(as('hamlet'), { oldPassword: old, newPassword: 'abc' }));
    expect(weak.message).toBe('New password is too weak!');
    expect(await updateSettings(as('hamlet'), { oldPassword: old, newPassword: 'new-secret-1' })).toEqual({ result: 'success', msg: '' });
    // The old password no longer works; the new one does.
    expect((await caughtApiError(updateSettings(as('hamlet'), { oldPassword: old, newPassword: 'new-secret-2' }))).message).toBe('Wrong password!');
    await updateSettings(as('hamlet'), { oldPassword: 'new-secret-1', newPassword: 'new-secret-2' });
  });

  it('deletes the stored drafts, without an event, when drafts synchronization is turned off', async () => {
    const { as, user, store, queue } = setup();
    const events = await queue('hamlet');
    expect(store.drafts.get(user('hamlet').user_id)?.size).toBe(1);
    await updateSettings(as('hamlet'), { enableDraftsSynchronization: false });
    expect(store.drafts.has(user('hamlet').user_id)).toBe(false);
    expect(await events()).toEqual([{ type: 'user_settings', op: 'update', property: 'enable_drafts_synchronization', value: false }]);
  });

  it('keeps timezone and presence_enabled on the user record in step', async () => {
    const { as, user } = setup();
    await updateSettings(as('hamlet'), { timezone: 'Europe/Paris', presenceEnabled: false });
    expect(user('hamlet')).toMatchObject({ timezone: 'Europe/Paris', presence_enabled: false });
  });

  it('refuses bots', async () => {
    const { as, store } = setup();
    const bot = [...store.users.values()].find((u) => u.is_bot)!;
    const conn = as(bot);
    expect((await caughtApiError(updateSettings(conn, { colorScheme: 2 }))).message).toBe('This endpoint does not accept bot requests.');
  });

  it('serves the deprecated /settings/display and /settings/notifications aliases', async () => {
    const { as, user } = setup();
    await updateDisplaySettings(as('hamlet'), { colorScheme: 3 });
    await updateNotificationSettings(as('hamlet'), { enableSounds: false });
    expect(user('hamlet').settings).toMatchObject({ color_scheme: 3, enable_sounds: false });
    const unchanged = await updateDisplaySettings(as('hamlet'), { colorScheme: 3 });
    expect(unchanged.ignored_parameters_unsupported).toEqual(['color_scheme']);
  });
});

describe('settings events', () => {
  it('sends user_settings to queues with user_settings_object, and the legacy events to the others', async () => {
    const { as, user, queue } = setup();
    const modern = await queue('hamlet');
    const legacy = await queue('hamlet', false);
    const other = await queue('iago');
    const change: UpdateSettingsOptions = { defaultLanguage: 'de', enableSounds: false, hideAiFeatures: true };
    await updateSettings(as('hamlet'), change);
    const email = user('hamlet').email;
    expect(await modern()).toEqual([
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'de', language_name: 'German' },
      { type: 'user_settings', op: 'update', property: 'hide_ai_features', value: true },
      { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false },
    ]);
    expect(await legacy()).toEqual([
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'de', language_name: 'German' },
      { type: 'update_display_settings', user: email, setting_name: 'default_language', setting: 'de', language_name: 'German' },
      { type: 'user_settings', op: 'update', property: 'hide_ai_features', value: true },
      { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false },
      { type: 'update_global_notifications', user: email, notification_name: 'enable_sounds', setting: false },
    ]);
    expect(await other()).toEqual([]);
  });

  it('announces a time zone change to everyone who can access the user', async () => {
    const { as, user, queue } = setup();
    const modern = await queue('hamlet');
    const other = await queue('iago');
    await updateSettings(as('hamlet'), { timezone: 'Europe/Paris' });
    const hamlet = user('hamlet');
    const realmUser = { type: 'realm_user', op: 'update', person: { email: hamlet.email, user_id: hamlet.user_id, timezone: 'Europe/Paris' } };
    expect(await modern()).toEqual([{ type: 'user_settings', op: 'update', property: 'timezone', value: 'Europe/Paris' }, realmUser]);
    expect(await other()).toEqual([realmUser]);
  });

  it('sends nothing for unchanged settings', async () => {
    const { as, queue } = setup();
    const modern = await queue('hamlet');
    await updateSettings(as('hamlet'), { colorScheme: 1, enableSounds: true });
    expect(await modern()).toEqual([]);
  });
});

describe('register state', () => {
  it('returns the user_settings object with current values, valid per OpenAPI', async () => {
    const { as, user } = setup();
    await updateSettings(as('hamlet'), { colorScheme: 2, timezone: 'Europe/Paris', defaultLanguage: 'fr' });
    const state = await registerQueue(as('hamlet'), {
      fetchEventTypes: ['user_settings'],
      clientCapabilities: { notification_settings_null: true, user_settings_object: true },
    });
    expect(validateResponse({ method: 'post', path: '/register' }, 200, state, { allowExtra: NEWER_SETTINGS })).toEqual({ valid: true, errors: '' });
    expect(state.user_settings).toMatchObject({
      color_scheme: 2,
      timezone: 'Europe/Paris',
      default_language: 'fr',
      twenty_four_hour_time: false,
      web_home_view: 'inbox',
      emojiset: 'google',
      receives_typing_notifications: true,
      presence_enabled: true,
      enable_drafts_synchronization: true,
    });
    expect(state.user_settings!.emojiset_choices!.map((c) => c.key).sort()).toEqual(['google', 'google-blob', 'text', 'twitter']);
    expect(state).not.toHaveProperty('color_scheme');
    // Iago's profile time zone comes from his user record.
    const iago = await registerQueue(as('iago'), { fetchEventTypes: ['user_settings'] });
    expect(iago.user_settings!.timezone).toBe(user('iago').timezone);
  });

  it('adds the legacy top-level keys for clients without user_settings_object', async () => {
    const { as } = setup();
    await updateSettings(as('hamlet'), { colorScheme: 3, enableDigestEmails: false });
    const state = await registerQueue(as('hamlet'), {
      fetchEventTypes: ['update_display_settings', 'update_global_notifications'],
    });
    expect(state).toMatchObject({ color_scheme: 3, enable_digest_emails: false, timezone: 'UTC' });
    expect(state).not.toHaveProperty('user_settings');
    expect(validateResponse({ method: 'post', path: '/register' }, 200, state, { allowExtra: NEWER_SETTINGS })).toEqual({ valid: true, errors: '' });
  });
});
