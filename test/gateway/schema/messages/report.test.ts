/**
 * `reportMessage` end to end: GraphQL → gateway → REST → emulator (feature level 382). One
 * upstream call, the report lands in the moderation request channel, Zulip's errors keep their
 * codes, bad input is refused before any call, and UNSUPPORTED_BY_SERVER below 382.
 */
import { describe, expect, it } from 'vitest';
import { setupHarness, type HarnessOptions } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

const REPORT = /* GraphQL */ `
  mutation ($id: Long!, $type: String!, $description: String) {
    reportMessage(id: $id, reportType: $type, description: $description) { messageId message { zulipId } }
  }
`;

function harness(options: HarnessOptions = { emulatorSettings: { featureLevel: 382 } }) {
  const h = setupHarness(options);
  const { store } = h.emulator;
  const message = [...store.messages.values()].find((m) => m.stream_id === h.channelId('general'))!;
  const reports = () => [...store.messages.values()].filter((m) => m.stream_id === h.channelId('moderation requests'));
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, store, message, reports, calls };
}

describe('reportMessage', () => {
  it('reports the message to the moderators in one call (after the feature level)', async () => {
    const { h, message, reports, calls } = harness();
    const { data, errors } = await h.gql(REPORT, { id: message.id, type: 'spam', description: 'Ads' }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data).toEqual({ reportMessage: { messageId: message.id, message: { zulipId: message.id } } });
    expect(reports()).toHaveLength(1);
    expect(reports()[0]!.content).toContain('**Spam**. Ads');
    expect(calls().slice(0, 2)).toEqual(['GET server_settings', `POST messages/${message.id}/report`]);
    expect(calls().filter((c) => c.endsWith('/report'))).toHaveLength(1);
  });

  it('passes on Zulip\u2019s BAD_REQUEST refusals', async () => {
    const { h, store, message, reports } = harness();
    const unknown = await h.gql(REPORT, { id: message.id, type: 'boring' }, AS_HAMLET);
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Invalid report_type', extensions: { code: 'BAD_REQUEST', route: 'report-message' } });
    store.realm.settings.moderation_request_channel_id = null;
    const off = await h.gql(REPORT, { id: message.id, type: 'spam' }, AS_HAMLET);
    expect(off.errors?.[0]).toMatchObject({ message: 'Message reporting is not enabled in this organization.', extensions: { code: 'BAD_REQUEST' } });
    expect(reports()).toEqual([]);
  });

  it('refuses bad input before any upstream call', async () => {
    const { h, message, calls } = harness();
    for (const [variables, argument] of [
      [{ id: 0, type: 'spam' }, 'id'],
      [{ id: message.id, type: ' ' }, 'reportType'],
      [{ id: message.id, type: 'other' }, 'description'],
      [{ id: message.id, type: 'spam', description: 'x'.repeat(1001) }, 'description'],
    ] as const) {
      const { errors } = await h.gql(REPORT, variables, AS_HAMLET);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    expect(calls()).toEqual([]);
  });

  it('is UNSUPPORTED_BY_SERVER below feature level 382', async () => {
    const { h, message, reports, calls } = harness({ emulatorSettings: { featureLevel: 381 } });
    const { errors } = await h.gql(REPORT, { id: message.id, type: 'spam' }, AS_HAMLET);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 382, featureLevel: 381 });
    expect(calls()).toEqual(['GET server_settings']);
    expect(reports()).toEqual([]);
  });
});
