/**
 * Scheduled messages end to end: GraphQL → gateway → REST → emulator. Covers the
 * `scheduledMessages` query, the three mutations, the errors the server answers (an unknown
 * channel is a GraphQL error with extensions.code STREAM_DOES_NOT_EXIST and extensions.stream_id)
 * and the feature-level gate on editing.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const later = Math.floor(Date.now() / 1000) + 3600;
  return { h, store: h.emulator.store, userId: h.userId, channelId: h.channelId, later };
}

const FIELDS = /* GraphQL */ `
  zulipId type channelId channel { name } recipientIds recipients { fullName } topic content renderedContent
  scheduledDeliveryTimestamp failed
`;

interface ScheduledData {
  zulipId: number;
  type: 'CHANNEL' | 'DIRECT';
  channelId: number | null;
  channel: { name: string } | null;
  recipientIds: number[];
  recipients: { fullName: string }[] | null;
  topic: string | null;
  content: string;
  renderedContent: string;
  scheduledDeliveryTimestamp: number;
  failed: boolean;
}

const CREATE = /* GraphQL */ `
  mutation ($type: ScheduledMessageType!, $to: [Long!]!, $content: String!, $topic: String, $at: Long!) {
    createScheduledMessage(type: $type, to: $to, content: $content, topic: $topic, scheduledDeliveryTimestamp: $at) {
      scheduledMessageId scheduledMessage { ${FIELDS} }
    }
  }
`;

const EDIT = /* GraphQL */ `
  mutation ($id: Long!, $type: ScheduledMessageType, $to: [Long!], $content: String, $topic: String, $at: Long) {
    editScheduledMessage(id: $id, type: $type, to: $to, content: $content, topic: $topic, scheduledDeliveryTimestamp: $at) {
      scheduledMessageId scheduledMessage { ${FIELDS} }
    }
  }
`;

const DELETE = 'mutation ($id: Long!) { deleteScheduledMessage(id: $id) { scheduledMessageId } }';

describe('scheduledMessages query', () => {
  it('lists pending and failed messages, soonest first, with channel and recipients resolved', async () => {
    const { h, store, userId, channelId } = harness();
    const { data, errors } = await h.gql<{ scheduledMessages: ScheduledData[] }>(`{ scheduledMessages { ${FIELDS} } }`, {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.scheduledMessages).toEqual([
      {
        zulipId: 2, type: 'DIRECT', channelId: null, channel: null, recipientIds: [userId('iago')], recipients: [{ fullName: 'Iago' }],
        topic: null, content: 'Reminder: review', renderedContent: '<p>Reminder: review</p>',
        scheduledDeliveryTimestamp: store.scheduledMessages.get(2)!.scheduled_delivery_timestamp, failed: true,
      },
      {
        zulipId: 1, type: 'CHANNEL', channelId: channelId('general'), channel: { name: 'general' }, recipientIds: [], recipients: [],
        topic: 'greetings', content: 'Good morning, everyone!', renderedContent: '<p>Good morning, everyone!</p>',
        scheduledDeliveryTimestamp: store.scheduledMessages.get(1)!.scheduled_delivery_timestamp, failed: false,
      },
    ]);
  });

  it('is empty for another user', async () => {
    const { h } = harness();
    const { data } = await h.gql<{ scheduledMessages: unknown[] }>('{ scheduledMessages { zulipId } }', {}, { as: demoUser('iago').email });
    expect(data!.scheduledMessages).toEqual([]);
  });
});

describe('createScheduledMessage', () => {
  it('schedules a channel message (sending the channel ID as an integer) and a direct message', async () => {
    const { h, store, channelId, userId, later } = harness();
    const channel = await h.gql<{ createScheduledMessage: { scheduledMessageId: number; scheduledMessage: ScheduledData } }>(
      CREATE, { type: 'CHANNEL', to: [channelId('design')], content: 'New **logo**', topic: 'branding', at: later }, { as: HAMLET },
    );
    expect(channel.errors).toBeUndefined();
    expect(channel.data!.createScheduledMessage).toEqual({
      scheduledMessageId: 3,
      scheduledMessage: {
        zulipId: 3, type: 'CHANNEL', channelId: channelId('design'), channel: { name: 'design' }, recipientIds: [], recipients: [],
        topic: 'branding', content: 'New **logo**', renderedContent: '<p>New <strong>logo</strong></p>', scheduledDeliveryTimestamp: later, failed: false,
      },
    });
    expect(store.scheduledMessages.get(3)).toMatchObject({ type: 'stream', to: channelId('design') });

    const direct = await h.gql<{ createScheduledMessage: { scheduledMessageId: number; scheduledMessage: ScheduledData } }>(
      CREATE, { type: 'DIRECT', to: [userId('othello')], content: 'Break a leg', at: later + 60 }, { as: HAMLET },
    );
    expect(direct.errors).toBeUndefined();
    expect(direct.data!.createScheduledMessage.scheduledMessage).toMatchObject({
      zulipId: 4, type: 'DIRECT', recipientIds: [userId('othello')], recipients: [{ fullName: 'Othello, the Moor of Venice' }], topic: null, channel: null,
    });
  });

  it('answers STREAM_DOES_NOT_EXIST carrying the channel ID for an unknown channel', async () => {
    const { h, store, later } = harness();
    const { data, errors } = await h.gql(CREATE, { type: 'CHANNEL', to: [9999], content: 'hi', topic: 't', at: later }, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]).toMatchObject({
      message: "Channel with ID '9999' does not exist",
      path: ['createScheduledMessage'],
      extensions: { code: 'STREAM_DOES_NOT_EXIST', stream_id: 9999, httpStatus: 400, route: 'create-scheduled-message' },
    });
    expect(store.scheduledMessages.size).toBe(2);
  });

  it('passes on BAD_REQUEST for an unknown user, a past time, a missing topic and two channels', async () => {
    const { h, store, channelId, later } = harness();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'DIRECT', to: [4242], content: 'hi', at: later }, 'Invalid user ID 4242'],
      [{ type: 'DIRECT', to: [channelId('general')], content: 'hi', at: 1000 }, 'Scheduled delivery time must be in the future.'],
      [{ type: 'CHANNEL', to: [channelId('general')], content: 'hi', at: later }, 'Missing topic'],
      [{ type: 'CHANNEL', to: [channelId('general'), channelId('design')], content: 'hi', topic: 't', at: later }, 'Invalid data type for channel ID'],
    ];
    for (const [variables, message] of cases) {
      const { errors } = await h.gql(CREATE, variables, { as: HAMLET });
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', httpStatus: 400 } });
    }
    expect(store.scheduledMessages.size).toBe(2);
  });
});

describe('editScheduledMessage', () => {
  it('edits content, topic and time, and moves a channel message to another channel without a type', async () => {
    const { h, channelId, later } = harness();
    const first = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(
      EDIT, { id: 1, content: 'Good *evening*', topic: 'evening', at: later }, { as: HAMLET },
    );
    expect(first.errors).toBeUndefined();
    expect(first.data!.editScheduledMessage.scheduledMessage).toMatchObject({
      zulipId: 1, topic: 'evening', content: 'Good *evening*', renderedContent: '<p>Good <em>evening</em></p>', scheduledDeliveryTimestamp: later,
    });
    const moved = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(EDIT, { id: 1, to: [channelId('design')] }, { as: HAMLET });
    expect(moved.errors).toBeUndefined();
    expect(moved.data!.editScheduledMessage.scheduledMessage).toMatchObject({ type: 'CHANNEL', channel: { name: 'design' }, topic: 'evening' });
  });

  it('changes the type: DIRECT needs `to`, CHANNEL needs `to` and a topic', async () => {
    const { h, userId, channelId } = harness();
    const noTo = await h.gql(EDIT, { id: 1, type: 'DIRECT' }, { as: HAMLET });
    expect(noTo.errors?.[0]).toMatchObject({ message: 'Recipient required when updating type of scheduled message.', extensions: { code: 'BAD_REQUEST' } });

    const direct = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(
      EDIT, { id: 1, type: 'DIRECT', to: [userId('cordelia')], topic: 'ignored' }, { as: HAMLET },
    );
    expect(direct.errors).toBeUndefined();
    expect(direct.data!.editScheduledMessage.scheduledMessage).toMatchObject({ type: 'DIRECT', recipientIds: [userId('cordelia')], topic: null });

    const noTopic = await h.gql(EDIT, { id: 1, type: 'CHANNEL', to: [channelId('general')] }, { as: HAMLET });
    expect(noTopic.errors?.[0]?.message).toBe('Topic required when updating scheduled message type to channel.');

    // A new `to` without a type follows the current (direct) type.
    const recipients = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(
      EDIT, { id: 1, to: [userId('iago')] }, { as: HAMLET },
    );
    expect(recipients.data!.editScheduledMessage.scheduledMessage).toMatchObject({ type: 'DIRECT', recipientIds: [userId('iago')] });

    const back = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(
      EDIT, { id: 1, type: 'CHANNEL', to: [channelId('general')], topic: 'back' }, { as: HAMLET },
    );
    expect(back.data!.editScheduledMessage.scheduledMessage).toMatchObject({ type: 'CHANNEL', channelId: channelId('general'), topic: 'back' });
  });

  it('requires a new time for a failed message and makes it pending', async () => {
    const { h, later } = harness();
    const refused = await h.gql(EDIT, { id: 2, content: 'again' }, { as: HAMLET });
    expect(refused.errors?.[0]).toMatchObject({ message: 'Scheduled delivery time must be in the future.', extensions: { code: 'BAD_REQUEST' } });
    const { data, errors } = await h.gql<{ editScheduledMessage: { scheduledMessage: ScheduledData } }>(EDIT, { id: 2, at: later }, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.editScheduledMessage.scheduledMessage).toMatchObject({ zulipId: 2, failed: false, scheduledDeliveryTimestamp: later, content: 'Reminder: review' });
  });

  it('answers STREAM_DOES_NOT_EXIST with the channel ID, and BAD_REQUEST for unknown users and messages', async () => {
    const { h, store, userId } = harness();
    const channel = await h.gql(EDIT, { id: 1, type: 'CHANNEL', to: [777], topic: 't' }, { as: HAMLET });
    expect(channel.errors?.[0]).toMatchObject({ extensions: { code: 'STREAM_DOES_NOT_EXIST', stream_id: 777, route: 'update-scheduled-message' } });
    const user = await h.gql(EDIT, { id: 2, to: [userId('iago'), 4242], at: Math.floor(Date.now() / 1000) + 60 }, { as: HAMLET });
    expect(user.errors?.[0]).toMatchObject({ message: 'Invalid user ID 4242', extensions: { code: 'BAD_REQUEST' } });
    const missing = await h.gql(EDIT, { id: 99, content: 'x' }, { as: HAMLET });
    expect(missing.errors?.[0]).toMatchObject({ message: 'Scheduled message does not exist', extensions: { code: 'BAD_REQUEST', httpStatus: 404 } });
    expect(store.scheduledMessages.get(1)).toMatchObject({ topic: 'greetings', type: 'stream' });
    expect(store.scheduledMessages.get(2)).toMatchObject({ failed: true });
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 184 without editing, while creating still works', async () => {
    const { h, store, channelId, later } = harness({ emulatorSettings: { featureLevel: 183 } });
    const { data, errors } = await h.gql(EDIT, { id: 1, content: 'x' }, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 184, featureLevel: 183 });
    expect(errors?.[0]?.message).toContain('feature level 184');
    expect(h.upstreamRequests.some((r) => r.method === 'PATCH')).toBe(false);
    expect(store.scheduledMessages.get(1)!.content).toBe('Good morning, everyone!');

    const created = await h.gql(CREATE, { type: 'CHANNEL', to: [channelId('general')], content: 'hi', topic: 't', at: later }, { as: HAMLET });
    expect(created.errors).toBeUndefined();
  });
});

describe('deleteScheduledMessage', () => {
  it('deletes a scheduled message, and answers BAD_REQUEST for an unknown one', async () => {
    const { h, store } = harness();
    const { data, errors } = await h.gql<{ deleteScheduledMessage: { scheduledMessageId: number } }>(DELETE, { id: 2 }, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.deleteScheduledMessage).toEqual({ scheduledMessageId: 2 });
    expect([...store.scheduledMessages.keys()]).toEqual([1]);

    const again = await h.gql(DELETE, { id: 2 }, { as: HAMLET });
    expect(again.data).toBeNull();
    expect(again.errors?.[0]).toMatchObject({
      message: 'Scheduled message does not exist',
      extensions: { code: 'BAD_REQUEST', httpStatus: 404, route: 'delete-scheduled-message' },
    });
  });

  it('cannot delete another user\u2019s scheduled message', async () => {
    const { h, store } = harness();
    const { errors } = await h.gql(DELETE, { id: 1 }, { as: demoUser('iago').email });
    expect(errors?.[0]?.message).toBe('Scheduled message does not exist');
    expect(store.scheduledMessages.size).toBe(2);
  });
});
