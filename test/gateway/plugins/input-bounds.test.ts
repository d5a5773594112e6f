/**
 * Every String argument is bounded before execution, literals and variables alike: a topic, a
 * channel name or description by the chat server's own limits (learnt from its registration
 * response), a topic or message Zulip would truncate by ten times its limit, anything else by
 * MAX_STRING_LENGTH. Refusals are BAD_USER_INPUT naming the argument, with nothing upstream
 * (plugins/input-bounds.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_INPUT_LIMITS } from '../../../src/gateway/upstream/input-limits.js';
import { MAX_STRING_LENGTH, TRUNCATED_INPUT_FACTOR } from '../../../src/gateway/plugins/input-bounds.js';
import { createHarness, setupHarness, TEST_LIVE_DIRECTORY } from '../../helpers/harness.js';
import { wsOperation } from '../../helpers/ws-operation.js';
import { until } from '../../helpers/wait.js';

const h = createHarness();
afterAll(() => h.close());

const TOPIC = DEFAULT_INPUT_LIMITS.max_topic_length;
const narrowQuery = 'query ($n: NarrowInput) { messages(narrow: $n, first: 1) { nodes { zulipId } } }';

async function expectRefused(query: string, variables: Record<string, unknown>, argument: string, maxLength: number) {
  h.resetUpstreamRequests();
  const { status, data, errors } = await h.gql(query, variables);
  expect(status).toBe(200);
  expect(data ?? null).toBeNull();
  expect(errors).toHaveLength(1);
  expect(errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument, maxLength });
  expect(h.upstreamRequests).toEqual([]);
}

describe('string bounds', () => {
  it('refuses a 1 MB topic in a narrow (a variable), nothing upstream', async () => {
    await expectRefused(narrowQuery, { n: { channelName: 'general', topic: 'x'.repeat(1_000_000) } }, 'NarrowInput.topic', TOPIC);
  });

  it('holds a narrow topic to max_topic_length, counted in code points as Zulip does', async () => {
    await expectRefused(narrowQuery, { n: { channelName: 'general', topic: 'x'.repeat(TOPIC + 1) } }, 'NarrowInput.topic', TOPIC);
    const emoji = await h.gql(narrowQuery, { n: { channelName: 'general', topic: '🐙'.repeat(TOPIC) } });
    expect(emoji.errors).toBeUndefined();
  });

  it('bounds literals in the document too, inside lists and nested inputs', async () => {
    await expectRefused(
      `{ messages(narrow: { channelName: "general", not: { topic: "${'y'.repeat(TOPIC + 1)}" } }, first: 1) { nodes { id } } }`,
      {},
      'NarrowInput.topic',
      TOPIC,
    );
    await expectRefused(
      `mutation { unsubscribe(channelNames: ["general", "${'c'.repeat(DEFAULT_INPUT_LIMITS.max_stream_name_length + 1)}"]) { __typename } }`,
      {},
      'Mutation.unsubscribe(channelNames)',
      DEFAULT_INPUT_LIMITS.max_stream_name_length,
    );
  });

  it('lets the server truncate a sent topic up to ten times its limit, and refuses more', async () => {
    const send = 'mutation ($topic: String!) { sendMessage(channelName: "general", topic: $topic, content: "hi") { id } }';
    await expectRefused(send, { topic: 't'.repeat(TOPIC * TRUNCATED_INPUT_FACTOR + 1) }, 'Mutation.sendMessage(topic)', TOPIC * TRUNCATED_INPUT_FACTOR);
  });

  it('caps every other String at MAX_STRING_LENGTH', async () => {
    await expectRefused(
      'query ($e: String!) { userByEmail(email: $e) { zulipId } }',
      { e: 'e'.repeat(MAX_STRING_LENGTH + 1) },
      'Query.userByEmail(email)',
      MAX_STRING_LENGTH,
    );
  });

  it('refuses over graphql-ws the same way', async () => {
    const outcome = await wsOperation(
      h,
      JSON.stringify({ query: narrowQuery, variables: { n: { channelName: 'general', topic: 'x'.repeat(TOPIC + 1) } } }),
      () => h.resetUpstreamRequests(),
    );
    const errors = (outcome.payload as { errors?: unknown[] }).errors ?? (outcome.payload as unknown[]);
    expect(errors).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT', argument: 'NarrowInput.topic' } }]);
    expect(h.upstreamRequests).toEqual([]);
  });

  it("uses the server's own limits once a registration reported them", async () => {
    const small = setupHarness({ emulatorSettings: { maxTopicLength: 20 } });
    const ask = () => small.gql(narrowQuery, { n: { channelName: 'general', topic: 'x'.repeat(21) } });
    expect((await ask()).errors).toBeUndefined(); // Zulip's default (60) until the server says otherwise
    if (!TEST_LIVE_DIRECTORY) return; // nothing registers: the default stays
    // A lookup through the loaders starts the caller's live directory, which registers in the background.
    await small.gql('{ messages(last: 1) { nodes { sender { fullName } } } }');
    let refused: Awaited<ReturnType<typeof ask>> | undefined;
    await until(async () => ((refused = await ask()).errors?.length ?? 0) > 0);
    expect(refused!.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', maxLength: 20 });
    small.resetUpstreamRequests();
    await ask();
    expect(small.upstreamRequests).toEqual([]);
  });
});

