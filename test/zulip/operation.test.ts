/**
 * callOperation: a generated table entry becomes exactly the request a hand-written binding
 * sends (path filled and percent-encoded, `json` parameters JSON-encoded, `raw` ones as text), and
 * bad input fails before any request.
 */
import { describe, expect, it } from 'vitest';
import { zulipOperations } from '../../src/zulip/generated/operations.js';
import type { GetSavedSnippetsParams } from '../../src/zulip/generated/saved-snippets.js';
import { ZulipConnection, type SendOptions } from '../../src/zulip/index.js';
import { callOperation } from '../../src/zulip/operation.js';
import { scriptedFetch, success, type ScriptedResponse } from '../helpers/scripted-fetch.js';

const { getMessage, getMessages, getSavedSnippets, getUserByEmail, sendMessage, updateStream, uploadFile } = zulipOperations;

function connect(...responses: ScriptedResponse[]) {
  const fetch = scriptedFetch(responses);
  const connection = new ZulipConnection({
    baseUrl: 'http://zulip.localhost',
    credentials: { email: 'hamlet@zulip.example', apiKey: 'hamlet-key-0123456789' },
    fetch,
    retry: { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 },
  });
  return { connection, fetch };
}

interface SavedSnippetsResult {
  saved_snippets: { id: number; title: string; content: string; date_created: number }[];
}

/** A route as later resource files write it: one line, its result type taken from the declared return type. */
const listSavedSnippets = (connection: ZulipConnection, params: GetSavedSnippetsParams = {}, call?: SendOptions): Promise<SavedSnippetsResult> =>
  callOperation(connection, getSavedSnippets, params, call);

describe('callOperation', () => {
  it('serves a one-line route binding', async () => {
    const { connection, fetch } = connect(success({ saved_snippets: [{ id: 1, title: 't', content: 'c', date_created: 5 }] }));
    const { saved_snippets } = await listSavedSnippets(connection);
    expect(saved_snippets.map((snippet) => snippet.id)).toEqual([1]);
    expect(fetch.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET saved_snippets']);
  });

  it('sends a GET with text and JSON query parameters', async () => {
    const { connection, fetch } = connect(success({ messages: [], anchor: 1, found_anchor: true }));
    const result = await callOperation<object, { anchor: number }>(connection, getMessages, {
      anchor: 'newest',
      numBefore: 2,
      numAfter: 0,
      narrow: [{ operator: 'channel', operand: 'Verona' }],
      applyMarkdown: undefined,
    });
    expect(result.anchor).toBe(1);
    expect(fetch.requests).toHaveLength(1);
    expect(fetch.requests[0]!.method).toBe('GET');
    expect(fetch.requests[0]!.path).toBe('messages');
    expect(fetch.requests[0]!.query).toEqual({
      anchor: 'newest',
      num_before: '2',
      num_after: '0',
      narrow: '[{"operator":"channel","operand":"Verona"}]',
    });
  });

  it('fills and percent-encodes path parameters, and posts a form body', async () => {
    const { connection, fetch } = connect(success({}), success({ id: 9 }), success({}));
    await callOperation(connection, getUserByEmail, { email: 'a/b@example.com' });
    expect(fetch.requests[0]!.path).toBe('users/a%2Fb%40example.com');
    await callOperation(connection, sendMessage, { type: 'channel', to: 'Verona', topic: 'lunch', content: '"hi"' });
    expect(fetch.requests[1]!.method).toBe('POST');
    // `to` may be a list, so it is JSON; content and topic are text, quotes and all.
    expect(fetch.requests[1]!.form).toEqual({ type: 'channel', to: '"Verona"', topic: 'lunch', content: '"hi"' });
    await callOperation(connection, updateStream, { streamId: 7, messageRetentionDays: 'unlimited' });
    expect(fetch.requests[2]!.method).toBe('PATCH');
    expect(fetch.requests[2]!.path).toBe('streams/7');
    expect(fetch.requests[2]!.form).toEqual({ message_retention_days: '"unlimited"' });
  });

  it('refuses a missing path parameter, a structured text parameter and a multipart body before any request', async () => {
    const { connection, fetch } = connect();
    await expect(callOperation(connection, getMessage, {} as { messageId: number })).rejects.toThrow(/path parameter message_id is missing/);
    await expect(
      callOperation(connection, getMessages, { anchor: ['newest'] as unknown as string }),
    ).rejects.toThrow(/anchor is sent as text/);
    await expect(callOperation(connection, uploadFile, { filename: new Blob(['x']) } as never)).rejects.toThrow(/multipart/);
    expect(fetch.requests).toHaveLength(0);
  });
});
