/**
 * Topic visibility end to end: `setTopicVisibility` through the gateway to the emulator, the
 * `VisibilityPolicy` enum, errors, and the feature-level gates (170 for the endpoint, 219 for FOLLOWED).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createHarness, type Harness } from '../../helpers/harness.js';

const email = (login: string) => demoUser(login).email;

const SET = /* GraphQL */ `
  mutation($channelId: Long!, $topic: String!, $policy: VisibilityPolicy!) {
    setTopicVisibility(channelId: $channelId, topic: $topic, policy: $policy) { channelId channel { name } topic policy }
  }`;

function policiesOf(h: Harness, login: string) {
  return [...(h.emulator.store.userTopics.get(h.userId(login))?.values() ?? [])].map((t) => [t.stream_id, t.topic_name, t.visibility_policy]);
}

describe('setTopicVisibility', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('sets each policy and returns it with the channel', async () => {
    const general = h.channelId('general');
    for (const [policy, value] of [['MUTED', 1], ['UNMUTED', 2], ['FOLLOWED', 3]] as const) {
      const { data, errors } = await h.gql(SET, { channelId: general, topic: 'greetings', policy }, { as: email('cordelia') });
      expect(errors).toBeUndefined();
      expect(data).toEqual({ setTopicVisibility: { channelId: general, channel: { name: 'general' }, topic: 'greetings', policy } });
      expect(policiesOf(h, 'cordelia')).toEqual([[general, 'greetings', value]]);
    }
    const none = await h.gql(SET, { channelId: general, topic: 'greetings', policy: 'NONE' }, { as: email('cordelia') });
    expect(none.errors).toBeUndefined();
    expect(policiesOf(h, 'cordelia')).toEqual([]);
  });

  it('works for topics without messages and reads "(no topic)" as the empty topic', async () => {
    const design = h.channelId('design');
    await h.gql(SET, { channelId: design, topic: 'future plans', policy: 'FOLLOWED' }, { as: email('othello') });
    await h.gql(SET, { channelId: design, topic: '(no topic)', policy: 'MUTED' }, { as: email('othello') });
    expect(policiesOf(h, 'othello')).toEqual([
      [design, 'future plans', 3],
      [design, '', 1],
    ]);
  });

  it('maps upstream refusals to BAD_REQUEST errors', async () => {
    const cases: [number, string, string][] = [
      [h.channelId('engineering'), 'release plan', 'Invalid channel ID'],
      [9999, 'x', 'Invalid channel ID'],
    ];
    for (const [channelId, topic, message] of cases) {
      const { data, errors } = await h.gql(SET, { channelId, topic, policy: 'MUTED' }, { as: email('cordelia') });
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', route: 'update-user-topic' } });
    }
    // Over max_topic_length: refused by the gateway itself (plugins/input-bounds.ts), as the server would.
    const long = await h.gql(SET, { channelId: h.channelId('general'), topic: 'x'.repeat(61), policy: 'MUTED' }, { as: email('cordelia') });
    expect(long.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'Mutation.setTopicVisibility(topic)', maxLength: 60 });
  });

  it('refuses an unknown enum value in GraphQL validation', async () => {
    const { errors } = await h.gql(SET, { channelId: h.channelId('general'), topic: 't', policy: 'LOUD' }, { as: email('cordelia') });
    expect(errors?.[0]?.message).toMatch(/VisibilityPolicy/);
  });

  it('exposes the four policies in the enum', async () => {
    const { data } = await h.gql<{ __type: { enumValues: { name: string }[] } }>('{ __type(name: "VisibilityPolicy") { enumValues { name } } }');
    expect(data!.__type.enumValues.map((v) => v.name).sort()).toEqual(['FOLLOWED', 'MUTED', 'NONE', 'UNMUTED']);
  });
});

describe('setTopicVisibility on older servers', () => {
  it('needs feature level 219 for FOLLOWED and 170 for the endpoint', async () => {
    const h218 = createHarness({ emulatorSettings: { featureLevel: 218 } });
    const h169 = createHarness({ emulatorSettings: { featureLevel: 169 } });
    try {
      const followed = await h218.gql(SET, { channelId: h218.channelId('general'), topic: 't', policy: 'FOLLOWED' }, { as: email('hamlet') });
      expect(followed.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 219, featureLevel: 218 });
      const muted = await h218.gql(SET, { channelId: h218.channelId('general'), topic: 't', policy: 'MUTED' }, { as: email('hamlet') });
      expect(muted.errors).toBeUndefined();
      h169.resetUpstreamRequests();
      // MUTED and NONE have the legacy mute-topic endpoint below 170 (next test); UNMUTED has none.
      const old = await h169.gql(SET, { channelId: h169.channelId('general'), topic: 't', policy: 'UNMUTED' }, { as: email('hamlet') });
      expect(old.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 170 });
      expect(h169.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    } finally {
      await Promise.all([h218.close(), h169.close()]);
    }
  });

  it('mutes and clears a topic below feature level 170 through the legacy mute-topic endpoint, keeping its errors', async () => {
    const h = createHarness({ emulatorSettings: { featureLevel: 169 } });
    try {
      const general = h.channelId('general');
      const vars = (policy: string) => ({ channelId: general, topic: 'old news', policy });
      const muted = await h.gql(SET, vars('MUTED'), { as: email('hamlet') });
      expect(muted.errors).toBeUndefined();
      expect(muted.data).toEqual({ setTopicVisibility: { channelId: general, channel: { name: 'general' }, topic: 'old news', policy: 'MUTED' } });
      expect(policiesOf(h, 'hamlet')).toContainEqual([general, 'old news', 1]);
      expect(h.upstreamRequests.filter((r) => r.path !== 'streams').map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET server_settings',
        'PATCH users/me/subscriptions/muted_topics',
      ]);
      const again = await h.gql(SET, vars('MUTED'), { as: email('hamlet') });
      expect(again.errors?.[0]).toMatchObject({ message: 'Topic already muted', extensions: { code: 'BAD_REQUEST', route: 'mute-topic' } });
      const cleared = await h.gql(SET, vars('NONE'), { as: email('hamlet') });
      expect(cleared.errors).toBeUndefined();
      expect(policiesOf(h, 'hamlet')).not.toContainEqual([general, 'old news', 1]);
      const notMuted = await h.gql(SET, vars('NONE'), { as: email('hamlet') });
      expect(notMuted.errors?.[0]).toMatchObject({ message: 'Topic is not muted', extensions: { code: 'BAD_REQUEST', route: 'mute-topic' } });
    } finally {
      await h.close();
    }
  });
});
