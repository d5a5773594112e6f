/**
 * Message and reaction bindings: the exact request each one sends (method, path, query or form
 * fields, JSON encoding of arrays and narrows), how documented responses parse, and how the
 * documented errors arrive. Canned bodies are written here, shaped like the examples at
 * https://zulip.com/api/ (the committed OpenAPI facts carry no examples), and checked against the
 * documented response schemas so that they stay shapes a real server sends.
 */
import { describe, expect, test } from 'vitest';
import { ZulipApiError, ZulipConnection } from '../../src/zulip/index.js';
import { NEWEST_ANCHOR_ID } from '../../src/zulip/model/messages.js';
import {
  getMessage,
  getMessages,
  sendMessage,
  updateMessage,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
} from '../../src/zulip/routes/messages.js';
import { addReaction, removeReaction } from '../../src/zulip/routes/reactions.js';
import { validateResponse } from '../helpers/openapi.js';
import { apiError, scriptedFetch, success, type ScriptedResponse } from '../helpers/scripted-fetch.js';

const CREDENTIALS = { email: 'hamlet@zulip.example', apiKey: 'hamlet-key-0123456789' };

function connect(...responses: ScriptedResponse[]) {
  const fetch = scriptedFetch(responses);
  const connection = new ZulipConnection({ baseUrl: 'http://zulip.localhost', credentials: CREDENTIALS, fetch, retry: { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 } });
  return { connection, fetch };
}

/** A message as `GET /messages` returns it (https://zulip.com/api/get-messages), with the differences given. */
function wireMessage(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    avatar_url: 'https://secure.gravatar.com/avatar/6d8cad0fd00256e7b40691d27ddfd466?d=identicon&version=1',
    client: 'populate_db',
    content: '<p>Security experts agree that relational algorithms are an interesting new topic.</p>',
    content_type: 'text/html',
    display_recipient: 'Verona',
    flags: ['read'],
    id: 1,
    is_me_message: false,
    reactions: [],
    recipient_id: 20,
    sender_email: 'iago@zulip.example',
    sender_full_name: 'Iago',
    sender_id: 5,
    sender_realm_str: 'zulip',
    stream_id: 5,
    subject: 'Verona3',
    submessages: [],
    timestamp: 1527939746,
    topic_links: [],
    type: 'stream',
    ...fields,
  };
}

/** Bodies of successful answers, as documented; each is checked against its response schema below. */
const BODIES = {
  getMessages: {
    result: 'success',
    msg: '',
    anchor: 21,
    found_newest: true,
    found_anchor: true,
    found_oldest: false,
    history_limited: false,
    messages: [
      wireMessage({
        id: 16,
        type: 'private',
        subject: '',
        recipient_id: 27,
        content: '<p>Hello, everyone!</p>',
        display_recipient: [
          { id: 4, email: 'hamlet@zulip.example', full_name: 'King Hamlet', is_mirror_dummy: false },
          { id: 5, email: 'iago@zulip.example', full_name: 'Iago', is_mirror_dummy: false },
          { id: 8, email: 'prospero@zulip.example', full_name: 'Prospero from The Tempest', is_mirror_dummy: false },
        ],
      }),
      wireMessage({ id: 21 }),
    ],
  },
  getMessage: {
    result: 'success',
    msg: '',
    raw_content: "**Don't** forget your towel!",
    message: wireMessage({ id: 16, content: "<p><strong>Don't</strong> forget your towel!</p>", flags: ['read'] }),
  },
  sendMessage: { result: 'success', msg: '', id: 42, automatic_new_visibility_policy: 2 },
  updateMessageFlags: { result: 'success', msg: '', messages: [4, 18, 15] },
  updateMessageFlagsForNarrow: {
    result: 'success',
    msg: '',
    processed_count: 11,
    updated_count: 8,
    first_processed_id: 35,
    last_processed_id: 55,
    found_oldest: false,
    found_newest: true,
  },
} as const;

/** The documented MOVE_MESSAGES_TIME_LIMIT_EXCEEDED error of `PATCH /messages/{message_id}`. */
const MOVE_LIMIT_ERROR = {
  code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
  first_message_id_allowed_to_move: 123,
  msg: 'You only have permission to move the 2/5 most recent messages in this topic.',
  result: 'error',
  total_messages_allowed_to_move: 2,
  total_messages_in_topic: 5,
};

/** A fresh copy of a canned body. */
function body(name: keyof typeof BODIES): Record<string, unknown> {
  return structuredClone(BODIES[name]) as Record<string, unknown>;
}

describe('canned bodies', () => {
  test.each([
    ['GET', '/messages', 'getMessages'],
    ['GET', '/messages/{message_id}', 'getMessage'],
    ['POST', '/messages', 'sendMessage'],
    ['POST', '/messages/flags', 'updateMessageFlags'],
    ['POST', '/messages/flags/narrow', 'updateMessageFlagsForNarrow'],
  ] as const)('%s %s: the body of %s is what the schema documents', (method, path, name) => {
    const result = validateResponse({ method, path }, 200, body(name));
    expect(result.errors).toBe('');
  });

  test('the move-limit error is a coded error, with the counts https://zulip.com/api/update-message documents', () => {
    // The facts file keeps the error branches as bare CodedErrors: the counts are named here.
    const counts = ['first_message_id_allowed_to_move', 'total_messages_allowed_to_move', 'total_messages_in_topic'];
    const path = { method: 'PATCH', path: '/messages/{message_id}' };
    expect(validateResponse(path, 400, MOVE_LIMIT_ERROR, { allowExtra: counts }).errors).toBe('');
  });
});

describe('getMessages', () => {
  test('sends the window and the narrow as JSON text in the query string', async () => {
    const { connection, fetch } = connect({ json: body('getMessages') });
    const result = await getMessages(connection, {
      anchor: 'newest',
      numBefore: 101,
      numAfter: 0,
      includeAnchor: false,
      narrow: [
        { operator: 'channel', operand: 5 },
        { operator: 'topic', operand: 'a&b=c' },
        { operator: 'dm', operand: [3, 4] },
        { operator: 'sender', operand: 9, negated: true },
      ],
      applyMarkdown: false,
      clientGravatar: false,
      allowEmptyTopicName: true,
    });

    const [request] = fetch.requests;
    expect(request!.method).toBe('GET');
    expect(request!.path).toBe('messages');
    expect(request!.form).toEqual({});
    expect(request!.query).toEqual({
      anchor: 'newest',
      num_before: '101',
      num_after: '0',
      include_anchor: 'false',
      narrow:
        '[{"operator":"channel","operand":5},{"operator":"topic","operand":"a&b=c"},' +
        '{"operator":"dm","operand":[3,4]},{"operator":"sender","operand":9,"negated":true}]',
      apply_markdown: 'false',
      client_gravatar: 'false',
      allow_empty_topic_name: 'true',
    });
    // Never the bracketed form a generic encoder would produce.
    expect([...request!.url.searchParams.keys()].some((k) => k.includes('['))).toBe(false);
    expect(result.messages.map((m) => m.id)).toEqual([16, 21]);
    expect(result.messages[0]!.display_recipient).toHaveLength(3);
    expect(result.messages[1]!.display_recipient).toBe('Verona');
  });

  test('sends message_ids as a JSON list and no window', async () => {
    const { connection, fetch } = connect(success({ found_newest: false, found_oldest: false, found_anchor: false, history_limited: false, messages: [] }));
    await getMessages(connection, { messageIds: [3, 2_500_000_000], narrow: [] });
    expect(fetch.requests[0]!.query).toEqual({ message_ids: '[3,2500000000]', narrow: '[]' });
  });

  test('numeric anchors go as decimal text, and the legacy newest anchor parses exactly', async () => {
    const { connection, fetch } = connect(
      success({ anchor: NEWEST_ANCHOR_ID, found_newest: true, found_oldest: true, found_anchor: false, history_limited: false, messages: [] }),
    );
    const result = await getMessages(connection, { anchor: 3_000_000_001, numBefore: 0, numAfter: 5 });
    expect(fetch.requests[0]!.query.anchor).toBe('3000000001');
    expect(result.anchor).toBe(10_000_000_000_000_000);
    expect(Number.isInteger(result.anchor)).toBe(true);
  });
});

describe('excluding the anchor', () => {
  // Zulip's get_messages_backend and update_message_flags_for_narrow answer 400 "The anchor can
  // only be excluded at an end of the range" for this combination: refuse it before any request.
  test.each([
    ['getMessages', (c: ZulipConnection) => getMessages(c, { anchor: 42, includeAnchor: false, numBefore: 3, numAfter: 3 })],
    [
      'updateMessageFlagsForNarrow',
      (c: ZulipConnection) =>
        updateMessageFlagsForNarrow(c, { anchor: 42, includeAnchor: false, numBefore: 1, numAfter: 1, narrow: [], op: 'add', flag: 'read' }),
    ],
  ])('%s refuses includeAnchor false with both sides positive, sending nothing', async (name, call) => {
    const { connection, fetch } = connect(success());
    const error = await call(connection).then(
      () => expect.unreachable('expected a rejection'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toContain(name);
    expect(fetch.requests).toHaveLength(0);
  });

  test('includeAnchor false at an end of the range is sent as asked', async () => {
    const window = { found_newest: true, found_oldest: false, found_anchor: true, history_limited: false, messages: [] };
    const { connection, fetch } = connect(success(window), success(window));
    await getMessages(connection, { anchor: 42, includeAnchor: false, numBefore: 0, numAfter: 5 });
    await getMessages(connection, { anchor: 42, includeAnchor: false, numBefore: 5, numAfter: 0 });
    expect(fetch.requests.map((r) => [r.query.include_anchor, r.query.num_before, r.query.num_after])).toEqual([
      ['false', '0', '5'],
      ['false', '5', '0'],
    ]);
  });
});

describe('getMessage', () => {
  test('GETs messages/{id} and returns the message with its raw content', async () => {
    const { connection, fetch } = connect({ json: body('getMessage') });
    const result = await getMessage(connection, { messageId: 16, applyMarkdown: false });
    expect(fetch.requests[0]).toMatchObject({ method: 'GET', path: 'messages/16', query: { apply_markdown: 'false' } });
    expect(result.raw_content).toBe("**Don't** forget your towel!");
    expect(result.message.id).toBe(16);
  });

  test('handles IDs above 2^31', async () => {
    const { connection, fetch } = connect(success({ message: { id: 4_294_967_296 }, raw_content: 'x' }));
    const result = await getMessage(connection, { messageId: 4_294_967_296 });
    expect(fetch.requests[0]!.path).toBe('messages/4294967296');
    expect(result.message.id).toBe(4_294_967_296);
  });

  test('an invalid ID is a BAD_REQUEST ZulipApiError', async () => {
    const { connection } = connect(apiError('BAD_REQUEST', 'Invalid message(s)'));
    await expect(getMessage(connection, { messageId: 999 })).rejects.toMatchObject({
      kind: 'api',
      code: 'BAD_REQUEST',
      routeName: 'get-message',
    });
  });
});

describe('sendMessage', () => {
  test('direct messages: form-encoded, `to` as a JSON list', async () => {
    const { connection, fetch } = connect({ json: body('sendMessage') });
    const result = await sendMessage(connection, { type: 'direct', to: [9, 10], content: 'Hi & bye', readBySender: true });
    const [request] = fetch.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('messages');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.query).toEqual({});
    expect(request!.form).toEqual({ type: 'direct', to: '[9,10]', content: 'Hi & bye', read_by_sender: 'true' });
    expect(result).toMatchObject({ id: 42, automatic_new_visibility_policy: 2 });
  });

  test('channel messages: a channel name goes as a JSON string (so "123" stays a name), an ID as a number', async () => {
    const { connection, fetch } = connect(success({ id: 1 }), success({ id: 2 }), success({ id: 3 }));
    await sendMessage(connection, { type: 'stream', to: 'Denmark', topic: 'Castle', content: 'x', queueId: 'q1', localId: '100.01' });
    await sendMessage(connection, { type: 'stream', to: 7, topic: 'Castle', content: 'y' });
    await sendMessage(connection, { type: 'stream', to: '123', topic: 'Castle', content: 'z' });
    expect(fetch.requests[0]!.form).toEqual({ type: 'stream', to: '"Denmark"', topic: 'Castle', content: 'x', queue_id: 'q1', local_id: '100.01' });
    expect(fetch.requests[1]!.form).toEqual({ type: 'stream', to: '7', topic: 'Castle', content: 'y' });
    expect(fetch.requests[2]!.form.to).toBe('"123"');
  });

  test('wildcard-mention refusals keep their code', async () => {
    const { connection } = connect(
      apiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use stream wildcard mentions in this stream.'),
    );
    await expect(sendMessage(connection, { type: 'stream', to: 1, topic: 't', content: '@**all**' })).rejects.toMatchObject({
      code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
    });
  });
});

describe('updateMessage', () => {
  test('PATCHes messages/{id} with only the fields given', async () => {
    const { connection, fetch } = connect(success({ detached_uploads: [] }));
    const result = await updateMessage(connection, {
      messageId: 42,
      topic: '\u2714 deploy',
      propagateMode: 'change_all',
      sendNotificationToOldThread: false,
      sendNotificationToNewThread: true,
      streamId: 7,
    });
    const [request] = fetch.requests;
    expect(request!.method).toBe('PATCH');
    expect(request!.path).toBe('messages/42');
    expect(request!.form).toEqual({
      topic: '\u2714 deploy',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: 'false',
      send_notification_to_new_thread: 'true',
      stream_id: '7',
    });
    expect(result.detached_uploads).toEqual([]);
  });

  test('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED carries the counts in data', async () => {
    const { connection } = connect({ status: 400, json: MOVE_LIMIT_ERROR });
    const error = await updateMessage(connection, { messageId: 1, topic: 'x', propagateMode: 'change_all' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZulipApiError);
    expect(error).toMatchObject({
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      httpStatus: 400,
      data: { first_message_id_allowed_to_move: 123, total_messages_allowed_to_move: 2, total_messages_in_topic: 5 },
    });
  });

  test('a content edit sends the content raw', async () => {
    const { connection, fetch } = connect(success());
    const result = await updateMessage(connection, { messageId: 3, content: 'new **text**' });
    expect(fetch.requests[0]!.form).toEqual({ content: 'new **text**' });
    expect(result.detached_uploads).toBeUndefined();
  });
});

describe('flags', () => {
  test('updateMessageFlags POSTs the IDs as JSON', async () => {
    const { connection, fetch } = connect({ json: body('updateMessageFlags') });
    const result = await updateMessageFlags(connection, { messages: [4, 8, 15], op: 'add', flag: 'read' });
    expect(fetch.requests[0]).toMatchObject({ method: 'POST', path: 'messages/flags', form: { messages: '[4,8,15]', op: 'add', flag: 'read' } });
    expect(result.messages).toEqual([4, 18, 15]);
  });

  test('updateMessageFlagsForNarrow sends the narrow as one JSON form field', async () => {
    const { connection, fetch } = connect({ json: body('updateMessageFlagsForNarrow') });
    const result = await updateMessageFlagsForNarrow(connection, {
      anchor: 'oldest',
      includeAnchor: true,
      numBefore: 0,
      numAfter: 5000,
      narrow: [{ operator: 'is', operand: 'unread' }, { operator: 'channel', operand: 'Denmark' }],
      op: 'add',
      flag: 'read',
    });
    const [request] = fetch.requests;
    expect(request!.path).toBe('messages/flags/narrow');
    expect(request!.form).toEqual({
      anchor: 'oldest',
      include_anchor: 'true',
      num_before: '0',
      num_after: '5000',
      narrow: '[{"operator":"is","operand":"unread"},{"operator":"channel","operand":"Denmark"}]',
      op: 'add',
      flag: 'read',
    });
    expect(Object.keys(request!.form).some((k) => k.includes('['))).toBe(false);
    expect(result).toMatchObject({ processed_count: 11, updated_count: 8, first_processed_id: 35, last_processed_id: 55 });
  });
});

describe('reactions', () => {
  test('addReaction POSTs to messages/{id}/reactions', async () => {
    const { connection, fetch } = connect(success());
    await addReaction(connection, { messageId: 42, emojiName: 'octopus', emojiCode: '1f419', reactionType: 'unicode_emoji' });
    expect(fetch.requests[0]).toMatchObject({
      method: 'POST',
      path: 'messages/42/reactions',
      form: { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
    });
  });

  test('removeReaction DELETEs with a form body, and REACTION_DOES_NOT_EXIST arrives as such', async () => {
    const { connection, fetch } = connect(success(), apiError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."));
    await removeReaction(connection, { messageId: 42, emojiName: 'octopus' });
    expect(fetch.requests[0]).toMatchObject({ method: 'DELETE', path: 'messages/42/reactions', form: { emoji_name: 'octopus' }, query: {} });
    await expect(removeReaction(connection, { messageId: 42, emojiName: 'octopus' })).rejects.toMatchObject({
      code: 'REACTION_DOES_NOT_EXIST',
      routeName: 'remove-reaction',
    });
  });
});
