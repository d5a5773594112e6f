/**
 * The emulator's call-creation endpoints, driven through src/zulip/routes/calls.ts: a join URL of
 * the provider's shape when the organization uses that provider, Zulip's error otherwise.
 */
import { describe, expect, it } from 'vitest';
import { createBigBlueButtonVideoCall, createConstructorGroupsVideoCall, createNextcloudTalkVideoCall } from '../../src/zulip/routes/calls.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

describe('video calls', () => {
  it('creates a BigBlueButton call whose signed link carries the meeting details', async () => {
    const t = setupEmulator();
    t.store.realm.settings.video_chat_provider = 'big_blue_button';
    const { url } = await createBigBlueButtonVideoCall(t.as('hamlet'), { meetingName: 'design sync', voiceOnly: true });
    expect(url).toMatch(/^\/calls\/bigbluebutton\/join\?bigbluebutton=[\w-]+$/);
    const signed = new URL(url, 'http://x').searchParams.get('bigbluebutton')!;
    expect(JSON.parse(Buffer.from(signed, 'base64url').toString())).toEqual({
      meeting_id: expect.stringMatching(/^zulip-\d{12}$/), name: 'design sync', lock_settings_disable_cam: true, moderator: t.userId('hamlet'),
    });
    const second = await createBigBlueButtonVideoCall(t.as('hamlet'), { meetingName: 'design sync' });
    expect(second.url).not.toBe(url);
  });

  it('creates Nextcloud Talk and Constructor Groups calls with absolute URLs', async () => {
    const t = setupEmulator({ settings: { featureLevel: 465 } });
    t.store.realm.settings.video_chat_provider = 'nextcloud_talk';
    expect((await createNextcloudTalkVideoCall(t.as('hamlet'), { roomName: '#design > colors' })).url).toMatch(/^https:\/\/nextcloud\.example\.com\/index\.php\/call\/\w+$/);
    t.store.realm.settings.video_chat_provider = 'constructor_groups';
    expect((await createConstructorGroupsVideoCall(t.as('hamlet'))).url).toMatch(/^https:\/\/example\.constructor\.app\/groups\/room\/room-\d+$/);
  });

  it('answers "<provider> is not configured." for a provider the organization does not use', async () => {
    const t = setupEmulator({ settings: { featureLevel: 465 } });
    const hamlet = t.as('hamlet');
    const cases: [Promise<unknown>, string][] = [
      [createBigBlueButtonVideoCall(hamlet, { meetingName: 'm' }), 'BigBlueButton is not configured.'],
      [createNextcloudTalkVideoCall(hamlet, { roomName: 'r' }), 'Nextcloud Talk is not configured.'],
      [createConstructorGroupsVideoCall(hamlet), 'Constructor Groups is not configured.'],
    ];
    for (const [call, message] of cases) {
      const e = await caughtApiError(call);
      expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', message, 400]);
    }
  });
});
