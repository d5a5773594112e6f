/**
 * Reminders end to end: GraphQL → gateway → REST → emulator. The query and both mutations, their
 * upstream calls, the target message link, Zulip's errors with their codes, bad input refused
 * before any call, and the feature-level gates (381 create, 399 list/delete, 415 note).
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = { as: demoUser('hamlet').email };
const START = Math.floor(Date.now() / 1000);

function harness(featureLevel = 415) {
  const h = setupHarness({ emulatorSettings: { featureLevel } });
  const message = [...h.emulator.store.messages.values()].find((m) => m.stream_id === h.channelId('general'))!;
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, message, calls };
}

const CREATE = /* GraphQL */ `
  mutation ($m: Long!, $at: Long!, $note: String) {
    createMessageReminder(messageId: $m, scheduledDeliveryTimestamp: $at, note: $note) {
      reminderId
      reminder { zulipId scheduledDeliveryTimestamp failed targetMessageId targetMessage { zulipId } content }
    }
  }
`;

describe('reminders', () => {
  it('creates a reminder (refetched because selected), lists it, and deletes it in one call', async () => {
    const { h, message, calls } = harness();
    const at = Math.floor(Date.now() / 1000) + 3600;
    const { data, errors } = await h.gql<{ createMessageReminder: { reminderId: number; reminder: Record<string, unknown> } }>(CREATE, { m: message.id, at, note: 'look' }, HAMLET);
    expect(errors).toBeUndefined();
    const id = data!.createMessageReminder.reminderId;
    expect(data!.createMessageReminder.reminder).toMatchObject({ zulipId: id, scheduledDeliveryTimestamp: at, failed: false, targetMessageId: message.id, targetMessage: { zulipId: message.id } });
    expect(data!.createMessageReminder.reminder.content).toContain('look');
    expect(calls().slice(0, 3)).toEqual(['GET server_settings', 'POST reminders', 'GET reminders']);

    h.resetUpstreamRequests();
    const list = await h.gql<{ reminders: { zulipId: number }[] }>('{ reminders { zulipId } }', {}, HAMLET);
    expect(list.data).toEqual({ reminders: [{ zulipId: id }] });
    expect(calls()).toEqual(['GET reminders']);

    h.resetUpstreamRequests();
    const del = await h.gql('mutation ($id: Long!) { deleteReminder(id: $id) { reminderId } }', { id }, HAMLET);
    expect(del.data).toEqual({ deleteReminder: { reminderId: id } });
    expect(calls()).toEqual([`DELETE reminders/${id}`]);
    const again = await h.gql('mutation ($id: Long!) { deleteReminder(id: $id) { reminderId } }', { id }, HAMLET);
    expect(again.errors?.[0]).toMatchObject({ message: 'Reminder does not exist', extensions: { code: 'BAD_REQUEST', httpStatus: 404, route: 'delete-reminder' } });
  });

  it('passes on the server\u2019s refusal and refuses bad input before any call', async () => {
    const { h, message, calls } = harness();
    const past = await h.gql(CREATE, { m: message.id, at: 1 }, HAMLET);
    expect(past.errors?.[0]).toMatchObject({ message: 'Scheduled delivery time must be in the future.', extensions: { code: 'BAD_REQUEST', route: 'create-message-reminder' } });
    h.resetUpstreamRequests();
    for (const [variables, argument] of [
      [{ m: 0, at: START + 60 }, 'messageId'],
      [{ m: message.id, at: 0 }, 'scheduledDeliveryTimestamp'],
      [{ m: message.id, at: START + 60, note: 'x'.repeat(1001) }, 'note'],
    ] as const) {
      const { errors } = await h.gql(CREATE, variables, HAMLET);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    expect(calls()).toEqual([]);
  });

  it('gates by feature level: no list below 399 (the payload\u2019s reminder is null), no note below 415, nothing below 381', async () => {
    const at381 = harness(381);
    const at = Math.floor(Date.now() / 1000) + 3600;
    const created = await at381.h.gql(CREATE, { m: at381.message.id, at }, HAMLET);
    expect(created.errors).toBeUndefined();
    expect(created.data).toMatchObject({ createMessageReminder: { reminder: null } });
    const list = await at381.h.gql('{ reminders { zulipId } }', {}, HAMLET);
    expect(list.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 399, featureLevel: 381 });
    const noted = await at381.h.gql(CREATE, { m: at381.message.id, at, note: 'n' }, HAMLET);
    expect(noted.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 415 });
    const at380 = harness(380);
    const refused = await at380.h.gql(CREATE, { m: at380.message.id, at }, HAMLET);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 381, featureLevel: 380 });
    expect(at380.calls()).toEqual(['GET server_settings']);
  });
});
