/**
 * Archived channels in the live directory. Before feature level 378 (Zulip 11.0) the register
 * state lists archived channels only in `subscriptions`, `unsubscribed` and `never_subscribed`,
 * not in `streams`, even with the `archived_channels` capability
 * (https://zulip.com/api/register-queue); the emulator, at its default feature level, does the
 * same. The directory takes them from the subscription lists, so a warm lookup of the demo's
 * archived channel `legacy` costs no `GET /streams/{id}`. A channel the server refuses costs one
 * call per directory generation, not one per query.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { sessionKey } from '../../../src/gateway/events/hub.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { raw } from '../../../src/zulip/params.js';
import { setupHarness, type Harness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const CHANNEL = 'query Channel($id: Long!) { channel(id: $id) { zulipId name description isArchived } }';

async function warm(h: Harness, login: string): Promise<void> {
  const { email, apiKey } = demoUser(login);
  const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } }));
  await h.gql('{ me { user { zulipId } } }', {}, { as: email });
  await until(() => h.gateway.directories!.registry.get(key)?.ready === true, 5000, `${login}'s directory`);
}

describe('archived channels in the live directory', () => {
  for (const featureLevel of [372, 378]) {
    it(`serves the archived channel from the directory, with no upstream call (feature level ${featureLevel})`, async () => {
      const h = setupHarness({ emulatorSettings: { featureLevel }, gateway: { liveDirectory: true } });
      const as = { as: demoUser('desdemona').email };
      const legacy = h.channelId('legacy');
      const perRequest = setupHarness({ emulatorSettings: { featureLevel }, gateway: { liveDirectory: false } });
      const direct = await perRequest.gql(CHANNEL, { id: legacy }, as);
      expect(direct.data).toMatchObject({ channel: { name: 'legacy', isArchived: true } });

      await warm(h, 'desdemona');
      for (let i = 0; i < 3; i++) {
        h.resetUpstreamRequests();
        const { data, errors } = await h.gql(CHANNEL, { id: legacy }, as);
        expect(errors).toBeUndefined();
        expect(data).toEqual(direct.data);
        expect(h.upstreamRequests).toEqual([]);
      }
    });
  }

  it('asks for a channel the server refuses once per directory generation, not once per query', async () => {
    const h = setupHarness({ gateway: { liveDirectory: true } });
    const as = { as: demoUser('hamlet').email };
    await warm(h, 'hamlet');
    const unknown = 987_654;
    const answers = [];
    for (let i = 0; i < 3; i++) {
      h.resetUpstreamRequests();
      const { data, errors } = await h.gql(CHANNEL, { id: unknown }, as);
      answers.push({ data, errors });
      expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(i === 0 ? [`GET streams/${unknown}`] : []);
    }
    expect(answers[0]!.data).toEqual({ channel: null });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // A channel event may give access: the next lookup asks the server again.
    const { email, apiKey } = demoUser('iago');
    const iago = new ZulipConnection({ baseUrl: h.zulipUrl, fetch: (i, init) => h.emulator.fetch(new Request(i, init)), credentials: { email, apiKey } });
    const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: demoUser('hamlet') }));
    const applied = h.gateway.directories!.registry.get(key)!.waitForEvent((e) => e.type === 'stream', 5000);
    await iago.request('update-stream', 'PATCH', `streams/${h.channelId('general')}`, { description: raw('Renewed') });
    expect(await applied).toBe('applied');
    h.resetUpstreamRequests();
    await h.gql(CHANNEL, { id: unknown }, as);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET streams/${unknown}`]);
  });
});
