/**
 * The estimate of an operation's upstream calls (src/gateway/upstream/estimate.ts) and the
 * per-operation cap MAX_UPSTREAM_CALLS (issue 19), end to end against an emulator grown to 40
 * channels of 3 topics each: the query selecting every field of `channels` is refused before any
 * upstream call with a code naming the estimate, and the same query without the cap really makes
 * hundreds of calls, no more than estimated. Aliases and fragments that fan out are counted.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addChannel, insertMessage, subscribe } from '../../../src/emulator/factory.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';
import { sessionKey } from '../../../src/gateway/events/hub.js';
import { buildSchema } from '../../../src/gateway/schema/index.js';
import { estimateUpstreamCalls, UpstreamEstimates } from '../../../src/gateway/upstream/estimate.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { createHarness, setupHarness, type Harness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const CHANNELS = 40;
const TOPICS = 3;

const USER = 'id zulipId fullName email deliveryEmail avatarUrl avatarVersion botType dateJoined isActive isBillingAdmin isBot role timezone profileData { fieldId value renderedValue } botOwner { id fullName }';
const GROUP_SETTING = 'groupId directMemberIds directSubgroupIds users { id fullName } allUsers { id fullName } groups { id name }';

/** Every field of `channels`, each object field with its own fields, the topics' channels with their per-channel fields. */
const EVERY_FIELD = /* GraphQL */ `{
  channels {
    id zulipId name description renderedDescription isArchived dateCreated creatorId creator { ${USER} }
    isPrivate isWebPublic historyPublicToSubscribers messageRetentionDays firstMessageId isRecentlyActive streamWeeklyTraffic isDefault
    canAddSubscribersGroup { ${GROUP_SETTING} } canRemoveSubscribersGroup { ${GROUP_SETTING} } canAdministerChannelGroup { ${GROUP_SETTING} }
    canSendMessageGroup { ${GROUP_SETTING} } canSubscribeGroup { ${GROUP_SETTING} }
    streamPostPolicy isAnnouncementOnly emailAddress unreadCount
    topics { name maxId channelId unreadCount channel { id name topics { name } emailAddress newestMessages { id } } }
    subscription {
      channelId color isMuted inHomeView pinToTop desktopNotifications emailNotifications pushNotifications audibleNotifications
      wildcardMentionsNotify subscriberIds subscribers { id fullName } channel { id name }
    }
    newestMessages {
      id zulipId type senderId senderEmail senderFullName senderRealmStr avatarUrl channelId channelName topic content contentType
      renderedContent rawContent timestamp client isMeMessage lastEditTimestamp lastMovedTimestamp flags flagNames read starred mentioned
      recipientId matchContent matchTopic sender { id fullName } channel { id name } topicLinks { text url }
      directMessageRecipients { userId user { id } } reactions { emojiName userId user { id fullName } }
      submessages { id senderId msgType content } editHistory { timestamp userId user { id } }
    }
  }
}`;

const owner = DEMO_USERS[0]!; // the harness's default caller

/** Grows the organization to CHANNELS channels the owner sees by default, each with TOPICS topics. */
async function growOrganization(h: Harness): Promise<void> {
  const listed = await h.gql<{ channels: unknown[] }>('{ channels { id } }');
  const store = h.emulator.store;
  const now = Date.now();
  const ownerId = store.userByEmail(owner.email)!.user_id;
  for (let i = listed.data!.channels.length; i < CHANNELS; i++) {
    const channel = addChannel(store, { name: `fan-out ${i}` }, now);
    subscribe(store, channel.stream_id, ownerId);
    for (let t = 0; t < TOPICS; t++) {
      insertMessage(store, { sender_id: ownerId, stream_id: channel.stream_id, topic: `topic ${t}`, content: `message ${t}`, timestamp: Math.floor(now / 1000) });
    }
  }
}

/**
 * Waits until the owner's live directory is loaded (the query starts it); its count of channels:
 * every channel the owner can see, archived and unsubscribed private ones too, so a few more than
 * `channels` lists by default.
 */
async function warmDirectory(h: Harness): Promise<number> {
  const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email: owner.email, apiKey: owner.apiKey } }));
  await h.gql('query($id: Long!) { channel(id: $id) { name } }', { id: h.channelId('general') });
  await until(() => h.gateway.directories!.registry.get(key)?.ready === true, 5000, "the owner's directory");
  return h.gateway.directories!.registry.get(key)!.sizes().channels;
}

type Result = Awaited<ReturnType<Harness['gql']>>;

function refusal(result: Result): { message: string; extensions: Record<string, unknown> } {
  expect(result.data ?? null).toBeNull();
  expect(result.errors).toHaveLength(1);
  const [error] = result.errors!;
  expect(error!.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED' });
  return { message: error!.message, extensions: error!.extensions! };
}

describe('the query selecting every field of channels, 40 channels', () => {
  // A budget far above what the query spends: only the cap is at stake here.
  const emulatorSettings = { rateLimit: { limit: 100_000, windowSeconds: 3600 } };

  for (const liveDirectory of [true, false]) {
    it(`is refused before any upstream call, naming its estimate; uncapped it makes hundreds of calls, no more than estimated (live directory ${liveDirectory ? 'on' : 'off'})`, async () => {
      const capped = setupHarness({ emulatorSettings, gateway: { liveDirectory } });
      const uncapped = setupHarness({ emulatorSettings, gateway: { liveDirectory, maxUpstreamCalls: 1_000_000 } });
      for (const h of [capped, uncapped]) {
        await growOrganization(h);
        if (liveDirectory) await warmDirectory(h);
        // The server's feature level (once per gateway, not the credential's) is not estimated.
        await h.gql('{ serverSettings { zulipFeatureLevel } }', {}, { as: null });
        h.resetUpstreamRequests();
      }

      const refused = refusal(await capped.gql(EVERY_FIELD));
      expect(refused.extensions).toMatchObject({ cap: 50 });
      const estimate = refused.extensions.estimate as number;
      expect(refused.message).toContain(`about ${estimate} calls`);
      expect(refused.message).toContain('cap of 50');
      expect(capped.upstreamRequests).toEqual([]);

      const ran = await uncapped.gql<{ channels: unknown[] }>(EVERY_FIELD);
      expect(ran.errors).toBeUndefined();
      expect(ran.data!.channels).toHaveLength(CHANNELS);
      const actual = uncapped.upstreamRequests.length;
      // Per channel: its topics, its email address, its newest messages; per topic the same of its channel.
      expect(actual).toBeGreaterThan(CHANNELS * TOPICS * 3);
      expect(ran.extensions!.upstreamRequests).toBe(actual);
      expect((ran.extensions!.upstreamBudget as { estimate: number }).estimate).toBe(estimate);
      expect(estimate).toBeGreaterThanOrEqual(actual);
    }, 60_000);
  }
});

describe('fan-outs through aliases and fragments, 40 channels, live directory loaded', () => {
  const h = createHarness({ gateway: { liveDirectory: true } });
  afterAll(() => h.close());
  /** The directory's count of channels, which sizes `channels` in the estimate. */
  let known = 0;
  beforeAll(async () => {
    await growOrganization(h);
    known = await warmDirectory(h);
    expect(known).toBeGreaterThanOrEqual(CHANNELS);
  }, 30_000);

  it('passes one channel list with its topics (1 + 40 calls), as estimated', async () => {
    h.resetUpstreamRequests();
    const result = await h.gql<{ channels: { topics: unknown[] }[] }>('{ channels { name topics { name } } }');
    expect(result.errors).toBeUndefined();
    expect(result.data!.channels).toHaveLength(CHANNELS);
    const calls = h.upstreamRequests.map((r) => `${r.method} ${r.path.replace(/\d+/, '{id}')}`);
    expect(calls.filter((c) => c === 'GET users/me/{id}/topics')).toHaveLength(CHANNELS);
    expect(calls.length).toBeLessThanOrEqual(1 + CHANNELS);
    expect(result.extensions!.upstreamRequests).toBe(calls.length);
  });

  it.each([
    ['two aliases of the list', '{ a: channels { topics { name } } b: channels { topics { name } } }', (n: number) => 2 * (1 + n)],
    ['aliases of a per-channel field', '{ channels { name a: emailAddress b: emailAddress } }', (n: number) => 1 + 2 * n],
    ['a fragment with two per-channel fields', 'fragment PerChannel on Channel { topics { name } emailAddress } { channels { ...PerChannel } }', (n: number) => 1 + 2 * n],
    ['a fragment spread twice under aliases', 'fragment Topics on Channel { topics { name } } { a: channels { ...Topics } b: channels { ... on Channel { ...Topics } } }', (n: number) => 2 * (1 + n)],
  ])('refuses %s before any upstream call', async (_what, query, estimateFor) => {
    h.resetUpstreamRequests();
    const refused = refusal(await h.gql(query));
    expect(refused.extensions).toMatchObject({ estimate: estimateFor(known), cap: 50 });
    expect(h.upstreamRequests).toEqual([]);
  });

  it('estimates a repeated document by the variables each request sends', async () => {
    // Refused either way: 1 + n for `a`, and 1 + 2n for `b` (1 + n when its topics are skipped).
    const query = 'query($skip: Boolean!) { a: channels { topics { name } } b: channels { topics @skip(if: $skip) { name } emailAddress } }';
    for (const skip of [false, true, false, true]) {
      h.resetUpstreamRequests();
      const refused = refusal(await h.gql(query, { skip }));
      expect(refused.extensions).toMatchObject({ estimate: skip ? 2 + 2 * known : 2 + 3 * known, cap: 50 });
      expect(h.upstreamRequests).toEqual([]);
    }
  });
});

describe('UpstreamEstimates, which keeps estimates per document', () => {
  const schema = buildSchema();
  const documents = [
    '{ channels { name topics { name } } }',
    '{ users { fullName } channels { name } }',
    'query($id: Long!) { user(id: $id) { fullName } }',
    'query($n: Int!) { messages(last: $n) { nodes { sender { fullName } channel { name } } } }',
    'query($skip: Boolean!) { channels { topics @skip(if: $skip) { name } } }',
    'mutation { updateSettings(fullName: "x") { fullName } }',
  ].map((text) => parse(text));
  const variables = [{ id: 1, n: 5, skip: false }, { id: 2, n: 50, skip: true }];
  const directories = [undefined, { users: 10, channels: 4, subscriptions: 3, userGroups: 2 }, { users: 11, channels: 5, subscriptions: 3, userGroups: 2 }];

  it('gives every request the estimate walking its document would, whatever its variables and directory', () => {
    const estimates = new UpstreamEstimates();
    for (let round = 0; round < 2; round++) {
      for (const document of documents) {
        for (const vars of variables) {
          for (const directory of directories) {
            const input = { schema, document, variables: vars, directory };
            expect(estimates.estimate(input)).toBe(estimateUpstreamCalls(input));
          }
        }
      }
    }
  });
});
