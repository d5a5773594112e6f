/**
 * API keys end to end: GraphQL → gateway → REST → emulator. `botApiKey` (feature level 463),
 * `regenerateBotApiKey` and `regenerateApiKey`: one call each, the server's codes, the gate, and
 * the keys kept out of every log line (trace level), span, metric and error.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { start } from '../../../src/main.js';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { setupHarness } from '../../helpers/harness.js';
import { memoryDestination } from '../observability/server.js';

const HAMLET = demoUser('hamlet');
const OTHELLO = demoUser('othello').email;
const FL = featureLevels.getBotApiKey;

function harness(featureLevel: number = FL) {
  const h = setupHarness({ emulatorSettings: { featureLevel } });
  const bot = [...h.emulator.store.users.values()].find((u) => u.is_bot)!;
  return { h, bot, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`).filter((c) => c !== 'GET server_settings') };
}

describe('bot API keys', () => {
  it('botApiKey answers the owner in one call, with the bot linked', async () => {
    const { h, bot, calls } = harness();
    const { data, errors } = await h.gql('query ($b: Long!) { botApiKey(botId: $b) { botId apiKey } }', { b: bot.user_id }, { as: HAMLET.email });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ botApiKey: { botId: bot.user_id, apiKey: bot.api_key } });
    expect(calls()).toEqual([`GET bots/${bot.user_id}/api_key`]);
    const linked = await h.gql<{ botApiKey: { bot: { fullName: string } } }>('query ($b: Long!) { botApiKey(botId: $b) { bot { fullName } } }', { b: bot.user_id }, { as: HAMLET.email });
    expect(linked.data?.botApiKey.bot.fullName).toBe('Hamlet Bot');
  });

  it('passes on Insufficient permission without the key, and is UNSUPPORTED_BY_SERVER below 463', async () => {
    const { h, bot } = harness();
    const { errors } = await h.gql('query ($b: Long!) { botApiKey(botId: $b) { apiKey } }', { b: bot.user_id }, { as: OTHELLO });
    expect(errors?.[0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST', route: 'get-bot-api-key' } });
    expect(JSON.stringify(errors)).not.toContain(bot.api_key);
    const old = harness(FL - 1);
    const refused = await old.h.gql('query ($b: Long!) { botApiKey(botId: $b) { apiKey } }', { b: old.bot.user_id }, { as: HAMLET.email });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: FL });
    expect(old.calls()).toEqual([]);
  });

  it('regenerateBotApiKey answers the new key in one call', async () => {
    const { h, bot, calls } = harness();
    const old = bot.api_key;
    const { data } = await h.gql<{ regenerateBotApiKey: { apiKey: string } }>('mutation ($b: Long!) { regenerateBotApiKey(botId: $b) { botId apiKey } }', { b: bot.user_id }, { as: HAMLET.email });
    expect(data?.regenerateBotApiKey).toEqual({ botId: bot.user_id, apiKey: bot.api_key });
    expect(bot.api_key).not.toBe(old);
    expect(calls()).toEqual([`POST bots/${bot.user_id}/api_key/regenerate`]);
  });

  it('regenerateApiKey answers the caller\u2019s new key, which then works', async () => {
    const { h, calls } = harness();
    const { data } = await h.gql<{ regenerateApiKey: { apiKey: string } }>('mutation { regenerateApiKey { apiKey } }', {}, { as: OTHELLO });
    const apiKey = data!.regenerateApiKey.apiKey;
    expect(apiKey).toBe(h.emulator.store.users.get(h.userId('othello'))!.api_key);
    expect(calls()).toEqual(['POST users/me/api_key/regenerate']);
    const me = await h.gql<{ me: { zulipId: number } }>('{ me { zulipId } }', {}, { as: { email: OTHELLO, apiKey } });
    expect(me.data?.me.zulipId).toBe(h.userId('othello'));
  });
});

describe('API keys stay secret', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('in no log line (at trace level), span attribute or metric: the key is only the payload', async () => {
    const emulator = createEmulator({ seed: 'demo', settings: { featureLevel: FL } });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => emulator.close());
    const logs = memoryDestination();
    const spans = new InMemorySpanExporter();
    const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', LOG_LEVEL: 'trace' }, () => undefined, { logDestination: logs, traceExporter: spans });
    cleanups.push(() => started.close());
    const bot = [...emulator.store.users.values()].find((u) => u.is_bot)!;
    const post = async (query: string, apiKey = HAMLET.apiKey) => {
      const authorization = `Basic ${Buffer.from(`${HAMLET.email}:${apiKey}`).toString('base64')}`;
      const response = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ query, variables: { b: bot.user_id } }) });
      return JSON.stringify(await response.json());
    };
    const read = await post('query Keys($b: Long!) { botApiKey(botId: $b) { apiKey } }');
    const botKey = bot.api_key;
    const renewed = await post('mutation Renew($b: Long!) { regenerateBotApiKey(botId: $b) { apiKey } }');
    const own = await post('mutation Own { regenerateApiKey { apiKey } }');
    const ownKey = emulator.store.users.get(bot.bot_owner_id!)!.api_key;
    expect([read, renewed, own]).toEqual([expect.stringContaining(botKey), expect.stringContaining(bot.api_key), expect.stringContaining(ownKey)]);
    const metrics = await (await fetch(`${new URL(started.url).origin}/metrics`)).text();
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(spans.getFinishedSpans().some((s) => s.name === 'mutation Renew')).toBe(true);
    const spanText = JSON.stringify(spans.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    for (const secret of [botKey, bot.api_key, ownKey, HAMLET.apiKey]) {
      expect(JSON.stringify(logs.lines)).not.toContain(secret);
      expect(spanText).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
  });
});
