/**
 * Video calls end to end: GraphQL → gateway → REST → emulator. Each mutation's one upstream call,
 * the server's "not configured" error and the feature-level gates.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness({ emulatorSettings: { featureLevel: 465 }, ...options });
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, calls, realm: h.emulator.store.realm.settings };
}

describe('video calls', () => {
  it('creates a BigBlueButton call with one upstream call (no feature-level check without voiceOnly)', async () => {
    const { h, calls, realm } = harness();
    realm.video_chat_provider = 'big_blue_button';
    const { data, errors } = await h.gql('mutation { createBigBlueButtonCall(meetingName: "sync") { url provider } }', {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ createBigBlueButtonCall: { url: expect.stringMatching(/^\/calls\/bigbluebutton\/join\?bigbluebutton=/), provider: 'BIG_BLUE_BUTTON' } });
    expect(calls()).toEqual(['GET calls/bigbluebutton/create']);
    expect(h.upstreamRequests[0]!.query).toEqual({ meeting_name: 'sync' });
  });

  it('creates Nextcloud Talk and Constructor Groups calls', async () => {
    const { h, calls, realm } = harness();
    realm.video_chat_provider = 'nextcloud_talk';
    const nextcloud = await h.gql('mutation { createNextcloudTalkCall(roomName: "#design > colors") { url provider } }', {}, { as: HAMLET });
    expect(nextcloud.data).toEqual({ createNextcloudTalkCall: { url: expect.stringMatching(/^https:\/\/nextcloud\.example\.com\//), provider: 'NEXTCLOUD_TALK' } });
    realm.video_chat_provider = 'constructor_groups';
    const constructor = await h.gql('mutation { createConstructorGroupsCall { url provider } }', {}, { as: HAMLET });
    expect(constructor.data).toEqual({ createConstructorGroupsCall: { url: expect.stringMatching(/^https:\/\/example\.constructor\.app\//), provider: 'CONSTRUCTOR_GROUPS' } });
    expect(calls()).toEqual(['GET server_settings', 'POST calls/nextcloud_talk/create', 'POST calls/constructorgroups/create']);
  });

  it('keeps the server\u2019s error for a provider it has not configured', async () => {
    const { h } = harness();
    const { data, errors } = await h.gql('mutation { createConstructorGroupsCall { url } }', {}, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]).toMatchObject({
      message: 'Constructor Groups is not configured.',
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'create-constructor-groups-video-call' },
    });
  });

  it('answers UNSUPPORTED_BY_SERVER below each field\u2019s feature level, before calling the endpoint', async () => {
    const { h, calls, realm } = harness({ emulatorSettings: { featureLevel: 336 } });
    realm.video_chat_provider = 'nextcloud_talk';
    const cases: [string, number][] = [
      ['mutation { createNextcloudTalkCall(roomName: "r") { url } }', 465],
      ['mutation { createConstructorGroupsCall { url } }', 460],
      ['mutation { createBigBlueButtonCall(meetingName: "m", voiceOnly: true) { url } }', 337],
    ];
    for (const [query, level] of cases) {
      const { errors } = await h.gql(query, {}, { as: HAMLET });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: level, featureLevel: 336 });
    }
    expect(calls()).toEqual(['GET server_settings']);
  });
});
