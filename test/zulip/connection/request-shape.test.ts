import { describe, expect, test } from 'vitest';
import { success } from '../../helpers/scripted-fetch.js';
import { json, raw, type WireParams } from '../../../src/zulip/params.js';
import { BASE, IAGO, connect } from './shared.js';

describe('request shape', () => {
  test('GET sends Basic auth, a User-Agent and Zulip-encoded query parameters', async () => {
    const { connection, fetch } = connect([success({ messages: [] })]);
    await connection.request('get-messages', 'GET', 'messages', {
      anchor: raw('newest'),
      num_before: json(10),
      num_after: json(0),
      apply_markdown: json(false),
      narrow: json([{ operator: 'channel', operand: 'design' }]),
      client_gravatar: json(undefined),
    });
    const [request] = fetch.requests;
    expect(request!.method).toBe('GET');
    expect(request!.url.origin + request!.url.pathname).toBe(`${BASE}/api/v1/messages`);
    expect(request!.basicAuth).toEqual(IAGO);
    expect(request!.headers['user-agent']).toBe('chatgraph/0.1');
    expect(request!.query).toEqual({
      anchor: 'newest',
      num_before: '10',
      num_after: '0',
      apply_markdown: 'false',
      narrow: '[{"operator":"channel","operand":"design"}]',
    });
    expect(request!.url.search).not.toMatch(/narrow%5B|narrow\[/);
    expect(request!.form).toEqual({});
  });

  test('POST, PATCH and DELETE send a form body; the query string stays empty', async () => {
    const { connection, fetch } = connect([success(), success(), success(), success()]);
    await connection.request('update-message-flags-for-narrow', 'POST', 'messages/flags/narrow', {
      anchor: raw('42'),
      narrow: json([['is', 'unread']]),
      op: raw('add'),
      flag: raw('read'),
      include_anchor: json(true),
    });
    await connection.request('update-message', 'PATCH', '/messages/42', { topic: raw('a & b = c'), send_notification_to_old_thread: json(false) });
    await connection.request('remove-reaction', 'DELETE', 'messages/42/reactions', { emoji_name: raw('octopus') });
    await connection.request('delete-queue', 'DELETE', 'events');
    const [flags, edit, reaction, bare] = fetch.requests;
    expect(flags!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(flags!.form).toEqual({
      anchor: '42',
      narrow: '[["is","unread"]]',
      op: 'add',
      flag: 'read',
      include_anchor: 'true',
    });
    expect(flags!.url.search).toBe('');
    expect(edit!.method).toBe('PATCH');
    expect(edit!.path).toBe('messages/42');
    expect(edit!.form).toEqual({ topic: 'a & b = c', send_notification_to_old_thread: 'false' });
    expect(reaction!.method).toBe('DELETE');
    expect(reaction!.form).toEqual({ emoji_name: 'octopus' });
    expect(bare!.form).toEqual({});
    expect(bare!.headers['content-type']).toBeUndefined();
  });

  test('request sends each parameter exactly as its route declared it, raw text or JSON', async () => {
    const { connection, fetch } = connect([success(), success()]);
    await connection.request('update-stream', 'PATCH', 'streams/7', {
      description: raw('"quoted" & plain'),
      message_retention_days: json('unlimited'),
      is_private: json(false),
      can_send_message_group: json({ new: { direct_members: [1], direct_subgroups: [] } }),
      new_name: raw(undefined),
      folder_id: json(null),
    });
    await connection.request('get-messages', 'GET', 'messages', { anchor: raw(42), num_before: json(5), narrow: json([]) });
    const [patch, get] = fetch.requests;
    expect(patch!.form).toEqual({
      description: '"quoted" & plain',
      message_retention_days: '"unlimited"',
      is_private: 'false',
      can_send_message_group: '{"new":{"direct_members":[1],"direct_subgroups":[]}}',
      folder_id: 'null',
    });
    expect(get!.query).toEqual({ anchor: '42', num_before: '5', narrow: '[]' });
  });

  test('a value not declared with raw() or json() is refused before any request', async () => {
    const { connection, fetch } = connect([success()]);
    const undeclared = { narrow: [] } as unknown as WireParams;
    await expect(connection.request('get-messages', 'GET', 'messages', undeclared)).rejects.toThrow(TypeError);
    expect(fetch.requests).toHaveLength(0);
  });

  test('without credentials no Authorization header is sent', async () => {
    const { connection, fetch } = connect([success({ realm_name: 'Zulip' })], { credentials: undefined });
    await connection.request('get-server-settings', 'GET', 'server_settings');
    expect(fetch.requests[0]!.headers.authorization).toBeUndefined();
    expect(connection.credentialKey).toBe('anonymous');
  });

  test('a base URL with a trailing slash does not double it', async () => {
    const { connection, fetch } = connect([success()], { baseUrl: `${BASE}/` });
    await connection.request('get-own-user', 'GET', 'users/me');
    expect(fetch.requests[0]!.url.href).toBe(`${BASE}/api/v1/users/me`);
  });
});
