/**
 * Archived channels in the live directory. Before feature level 378 (Zulip 11.0) the register
 * state lists archived channels only in `subscriptions`, `unsubscribed` and `never_subscribed`,
 * not in `streams`, even with the `archived_channels` capability
 * (https://zulip.com/api/register-queue); the emulator, at its default feature level, does the
 * same. The directory takes them from the subscription lists, so a warm lookup of the demo's
 * archived channel `legacy` costs no `GET /streams/{id}`.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { sessionKey } from '../../../src/gateway/events/hub.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { setupHarness, type Harness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const CHANNEL = 'query Channel($id: Long!) { channel(id: $id) { id name description isArchived } }';

async function warm(h: Harness, login: string): Promise<void> {
  const { email, apiKey } = demoUser(login);
  const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } }));
  await h.gql('{ me { user { id } } }', {}, { as: email });
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
});
