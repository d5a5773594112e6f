/**
 * Parameter encodings as Zulip's server code reads them (docs/zulip-parameters.md): `Json[...]`
 * parameters JSON-encoded, `str` ones as plain text, whatever the value's type. The cases are the
 * ones a type-based guess gets wrong or could get wrong.
 */
import { describe, expect, test } from 'vitest';
import { ZulipConnection } from '../../src/zulip/index.js';
import { encodeParams, json, raw } from '../../src/zulip/params.js';
import { updateStream } from '../../src/zulip/routes/channels.js';
import { registerQueue, getEvents } from '../../src/zulip/routes/events.js';
import { sendMessage, updateMessage } from '../../src/zulip/routes/messages.js';
import { updateSettings } from '../../src/zulip/routes/settings.js';
import { subscribe } from '../../src/zulip/routes/subscriptions.js';
import { setTypingStatus } from '../../src/zulip/routes/typing.js';
import { updateUserTopic } from '../../src/zulip/routes/user-topics.js';
import { scriptedFetch, success } from '../helpers/scripted-fetch.js';

function connect(count = 1) {
  const fetch = scriptedFetch(Array.from({ length: count }, () => success()));
  const connection = new ZulipConnection({
    baseUrl: 'http://zulip.localhost',
    credentials: { email: 'iago@zulip.example', apiKey: 'iago-key' },
    fetch,
    retry: { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 },
  });
  return { connection, fetch };
}

/** The form bodies of the requests the calls send, in order (each answered with a success). */
async function formsSent(...calls: ((connection: ZulipConnection) => Promise<unknown>)[]) {
  const { connection, fetch } = connect(calls.length);
  for (const call of calls) await call(connection);
  return fetch.requests.map((r) => r.form);
}

describe('raw and json', () => {
  test('raw sends the text itself, json its JSON form; undefined is left out, null is not', () => {
    const encoded = encodeParams({
      topic: raw('"quoted"'),
      anchor: raw(42),
      flag: raw(true),
      days: json('unlimited'),
      ids: json([1, 2]),
      folder: json(null),
      skipped: json(undefined),
    });
    expect([...encoded]).toEqual([
      ['topic', '"quoted"'],
      ['anchor', '42'],
      ['flag', 'true'],
      ['days', '"unlimited"'],
      ['ids', '[1,2]'],
      ['folder', 'null'],
    ]);
  });
});

describe('Json[str] parameters go JSON-encoded', () => {
  test('updateStream: message_retention_days "unlimited" is "\\"unlimited\\"", a number stays a number', async () => {
    const forms = await formsSent(
      (c) => updateStream(c, { streamId: 7, messageRetentionDays: 'unlimited', newName: 'design "team"' }),
      (c) => updateStream(c, { streamId: 7, messageRetentionDays: 30, description: 'Plain text' }),
    );
    expect(forms).toEqual([
      { message_retention_days: '"unlimited"', new_name: 'design "team"' },
      { message_retention_days: '30', description: 'Plain text' },
    ]);
  });

  test('subscribe: message_retention_days "realm_default" is JSON, the subscriptions one JSON list', async () => {
    const [form] = await formsSent((c) => subscribe(c, { subscriptions: [{ name: 'design' }], messageRetentionDays: 'realm_default', inviteOnly: true }));
    expect(form).toEqual({
      subscriptions: '[{"name":"design"}]',
      message_retention_days: '"realm_default"',
      invite_only: 'true',
    });
  });
});

describe('str parameters go raw', () => {
  test('sendMessage: content and topic raw, `to` JSON (the server JSON-decodes it first)', async () => {
    const [form] = await formsSent((c) => sendMessage(c, { type: 'channel', to: '123', topic: '[1]', content: '"hi"' }));
    expect(form).toEqual({ type: 'channel', to: '"123"', topic: '[1]', content: '"hi"' });
  });

  test('updateMessage: a topic that looks like JSON stays text; stream_id and notifications are JSON', async () => {
    const [form] = await formsSent((c) => updateMessage(c, { messageId: 9, topic: 'true', streamId: 3, sendNotificationToOldThread: true, propagateMode: 'change_all' }));
    expect(form).toEqual({
      topic: 'true',
      stream_id: '3',
      send_notification_to_old_thread: 'true',
      propagate_mode: 'change_all',
    });
  });

  test('register: include_subscribers is a str ("true" or "partial"), the lists are JSON', async () => {
    const forms = await formsSent(
      (c) => registerQueue(c, { eventTypes: ['message'], includeSubscribers: 'partial', narrow: [['channel', 'design']] }),
      (c) => registerQueue(c, { includeSubscribers: true }),
    );
    expect(forms).toEqual([
      { event_types: '["message"]', include_subscribers: 'partial', narrow: '[["channel","design"]]' },
      { include_subscribers: 'true' },
    ]);
  });

  test('settings: string settings raw, numbers and booleans JSON; unknown keys are not sent', async () => {
    const [form] = await formsSent((c) =>
      updateSettings(c, {
        webHomeView: 'inbox',
        timezone: 'Europe/Paris',
        colorScheme: 2,
        twentyFourHourTime: true,
        ...({ bogusSetting: 'x' } as object),
      }),
    );
    expect(form).toEqual({
      web_home_view: 'inbox',
      timezone: 'Europe/Paris',
      color_scheme: '2',
      twenty_four_hour_time: 'true',
    });
  });

  test('typing, user topics and events: IDs JSON, topic and queue ID raw', async () => {
    const { connection, fetch } = connect(3);
    await setTypingStatus(connection, { op: 'start', type: 'channel', streamId: 4, topic: 'null' });
    await updateUserTopic(connection, { streamId: 4, topic: '42', visibilityPolicy: 3 });
    await getEvents(connection, { queueId: '1700000000:5', lastEventId: -1, dontBlock: true });
    expect(fetch.requests.map((r) => ({ ...r.form, ...r.query }))).toEqual([
      { op: 'start', type: 'channel', stream_id: '4', topic: 'null' },
      { stream_id: '4', topic: '42', visibility_policy: '3' },
      { queue_id: '1700000000:5', last_event_id: '-1', dont_block: 'true' },
    ]);
  });
});
