import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createEmulator } from '../../src/emulator/app.js';
import { documentedLevel, responseExamples, validateResponse, type Operation } from './openapi.js';

/** A body built from the documented schema of an operation: known to be right. */
function example(operation: Operation, status = 200): Record<string, unknown> {
  const [first] = responseExamples(operation, status);
  expect(first, `example for ${operation.method} ${operation.path}`).toBeDefined();
  return structuredClone(first) as Record<string, unknown>;
}

const GET_MESSAGES = { method: 'GET', path: '/messages' };
const OWN_USER = { method: 'GET', path: '/users/me' };
const SEND_MESSAGE = { method: 'POST', path: 'messages' };
const SERVER_SETTINGS = { method: 'get', path: '/api/v1/server_settings' };

describe('bodies built from the documented schemas validate', () => {
  // The endpoints the gateway and emulator lean on,
  // named by concrete paths so that template matching is exercised too.
  const operations: [string, string][] = [
    ['PATCH', 'messages/42'],
    ['PATCH', 'streams/5'],
    ['GET', 'streams/5'],
    ['PATCH', 'settings'],
    ['POST', 'typing'],
    ['GET', 'events?queue_id=abc&last_event_id=-1'],
    ['DELETE', 'events'],
    ['PATCH', 'scheduled_messages/3'],
    ['GET', 'scheduled_messages'],
    ['POST', 'user_topics'],
    ['GET', 'messages'],
    ['POST', 'messages'],
    ['PATCH', 'users/9'],
    ['GET', 'streams'],
    ['POST', 'drafts'],
    ['GET', 'drafts'],
    ['POST', 'messages/flags/narrow'],
    ['POST', 'user_groups/create'],
    ['POST', 'user_groups/7/members'],
    ['GET', 'user_groups'],
    ['DELETE', 'users/me/subscriptions'],
    ['GET', 'users'],
    ['GET', 'users/12'],
    ['GET', 'users/iago@zulip.com'],
    ['GET', 'users/me'],
    ['DELETE', 'messages/42/reactions'],
    ['POST', 'messages/42/reactions'],
    ['GET', 'users/me/5/topics'],
    ['GET', 'server_settings'],
    ['POST', '/api/v1/register'],
  ];
  test.each(operations)('%s %s', (method, path) => {
    const examples = responseExamples({ method, path }, 200);
    expect(examples.length).toBeGreaterThan(0);
    for (const body of examples) expect(validateResponse({ method, path }, 200, body)).toEqual({ valid: true, errors: '' });
  });

  test('error bodies validate against their status', () => {
    const operation = { method: 'DELETE', path: '/messages/{message_id}/reactions' };
    const examples = responseExamples(operation, 400);
    expect(examples.length).toBeGreaterThan(0);
    for (const body of examples) expect(validateResponse(operation, 400, body).valid).toBe(true);
  });
});

describe('wrong bodies do not validate', () => {
  test('GET /messages: a message id of the wrong type', () => {
    const body = example(GET_MESSAGES);
    (body.messages as Record<string, unknown>[])[0]!.id = 'forty-two';
    const result = validateResponse(GET_MESSAGES, 200, body);
    expect(result.valid).toBe(false);
    expect(result.errors).toContain('/messages/0/id must be integer');
  });

  test('POST /messages: the required message id is missing', () => {
    expect(validateResponse(SEND_MESSAGE, 200, { result: 'success', msg: '', id: 42 }).valid).toBe(true);
    const result = validateResponse(SEND_MESSAGE, 200, { result: 'success', msg: '' });
    expect(result.valid).toBe(false);
    expect(result.errors).toContain("must have required property 'id'");
  });

  test('GET /server_settings: wrong types, a missing msg and a wrong result', () => {
    const body = example(SERVER_SETTINGS);
    expect(validateResponse(SERVER_SETTINGS, 200, { ...body, zulip_feature_level: '247' }).errors).toContain(
      '/zulip_feature_level must be integer',
    );
    const { msg: _msg, ...withoutMsg } = body;
    expect(validateResponse(SERVER_SETTINGS, 200, withoutMsg).errors).toContain("must have required property 'msg'");
    expect(validateResponse(SERVER_SETTINGS, 200, { ...body, result: 'error' }).valid).toBe(false);
    expect(validateResponse(SERVER_SETTINGS, 200, 'not an object').valid).toBe(false);
  });

  test('GET /users/{user_id}: nullable fields take null, others do not', () => {
    const operation = { method: 'GET', path: 'users/12' };
    const body = example(operation);
    const user = body.user as Record<string, unknown>;
    const withUser = (fields: Record<string, unknown>) => ({ ...body, user: { ...user, ...fields } });
    expect(validateResponse(operation, 200, withUser({ delivery_email: null, bot_type: null })).valid).toBe(true);
    const result = validateResponse(operation, 200, withUser({ full_name: null }));
    expect(result.valid).toBe(false);
    expect(result.errors).toContain('/user/full_name');
  });

  test('an error body without code does not match a coded error', () => {
    const operation = { method: 'DELETE', path: 'messages/9/reactions' };
    expect(validateResponse(operation, 400, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' }).valid).toBe(true);
    expect(validateResponse(operation, 400, { result: 'error', msg: 'Invalid message(s)' }).valid).toBe(false);
  });
});

describe('allowExtra', () => {
  test('tolerates exactly the named fields where additional properties are forbidden, at any depth', () => {
    const body = example(GET_MESSAGES);
    const message = (body.messages as Record<string, unknown>[])[0]!;
    message.future_field = 1;
    body.top_level_future = true;

    const strict = validateResponse(GET_MESSAGES, 200, body);
    expect(strict.valid).toBe(false);
    expect(strict.errors).toContain("must NOT have additional properties 'future_field'");
    expect(strict.errors).toContain("must NOT have additional properties 'top_level_future'");

    const partly = validateResponse(GET_MESSAGES, 200, body, { allowExtra: ['future_field'] });
    expect(partly.valid).toBe(false);
    expect(partly.errors).not.toContain("'future_field'");

    expect(validateResponse(GET_MESSAGES, 200, body, { allowExtra: ['top_level_future', 'future_field'] }).valid).toBe(true);
    // The strict validator is cached separately and still strict.
    expect(validateResponse(GET_MESSAGES, 200, body).valid).toBe(false);
  });
});

describe('lookup', () => {
  test('an operation or status the fixture does not document is reported, not passed', () => {
    const missing = validateResponse({ method: 'POST', path: '/no/such/endpoint' }, 200, { result: 'success', msg: '' });
    expect(missing.valid).toBe(false);
    expect(missing.errors).toContain('no operation');
    const status = validateResponse(SERVER_SETTINGS, 418, {});
    expect(status.valid).toBe(false);
    expect(status.errors).toContain('no JSON response documented');
  });

  test('literal segments win over templates', () => {
    // /users/me has a richer response than /users/{user_id}: max_message_id is only documented on the former.
    const body = example(OWN_USER);
    expect(body.max_message_id).toBeDefined();
    expect(validateResponse({ method: 'GET', path: 'users/me' }, 200, body).valid).toBe(true);
    expect(validateResponse({ method: 'GET', path: 'users/5' }, 200, body).valid).toBe(false);
  });
});

describe('the facts fixture', () => {
  test('holds schema facts only: no descriptions, examples or extension keywords but the level marks', () => {
    const facts = JSON.parse(readFileSync(new URL('../fixtures/zulip-openapi-facts.json', import.meta.url), 'utf8')) as unknown;
    const keywords = new Set<string>();
    // Keys of a `properties` map are field names (a channel has a `description` field); skip that level.
    const walk = (node: unknown, fieldNames: boolean): void => {
      if (Array.isArray(node)) return node.forEach((item) => walk(item, false));
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (!fieldNames) keywords.add(key);
        walk(value, !fieldNames && key === 'properties');
      }
    };
    walk((facts as { components: unknown }).components, false);
    for (const item of Object.values((facts as { paths: Record<string, unknown> }).paths)) walk(item, false);
    for (const prose of ['description', 'example', 'examples', 'summary', 'title']) expect(keywords).not.toContain(prose);
    expect([...keywords].filter((k) => k.startsWith('x-')).sort()).toEqual(['x-since', 'x-until']);
  });

  test('describes the feature level the emulator claims by default', async () => {
    const emulator = createEmulator();
    expect(documentedLevel()).toBe(emulator.settings.featureLevel);
    await emulator.close();
  });
});

describe('validating at a feature level', () => {
  const NAVIGATION_VIEWS = { method: 'GET', path: '/navigation_views' };
  const body = { result: 'success', msg: '', navigation_views: [] };

  test('an operation newer than the level is not documented there', () => {
    expect(validateResponse(NAVIGATION_VIEWS, 200, body).errors).toContain('no operation GET /navigation_views in the OpenAPI file at feature level 372');
    expect(validateResponse(NAVIGATION_VIEWS, 200, body, { level: 390 }).errors).toBe('');
  });

  test('a property newer than the level is refused below it and required from it on', () => {
    // `max_reminder_note_length` is new at 415 (https://zulip.com/api/register-queue).
    const register = { method: 'POST', path: '/register' };
    const [state] = responseExamples(register, 200, 415) as Record<string, unknown>[];
    expect(state!.max_reminder_note_length).toBeDefined();
    expect(validateResponse(register, 200, state, { level: 415 }).errors).toBe('');
    expect(validateResponse(register, 200, state).errors).toContain("must NOT have additional properties 'max_reminder_note_length'");
    const { max_reminder_note_length: _, ...older } = state!;
    expect(validateResponse(register, 200, older).errors).not.toContain('max_reminder_note_length');
  });

  test('a field renamed after the level keeps its older name below the rename', () => {
    // `realm_giphy_rating` became `realm_gif_rating_policy` at 453.
    const register = { method: 'POST', path: '/register' };
    const [state] = responseExamples(register, 200) as Record<string, unknown>[];
    expect(state).toHaveProperty('realm_giphy_rating');
    expect(state).not.toHaveProperty('realm_gif_rating_policy');
    const [newer] = responseExamples(register, 200, 453) as Record<string, unknown>[];
    expect(newer).toHaveProperty('realm_gif_rating_policy');
    expect(newer).not.toHaveProperty('realm_giphy_rating');
    expect(validateResponse(register, 200, newer, { level: 453 }).errors).toBe('');
    expect(validateResponse(register, 200, newer).errors).toContain("additional properties 'realm_gif_rating_policy'");
  });

  test('a type changed after the level has its older type below the change', () => {
    // An export's `export_type` was 1 or 2 before 449, a name from it on.
    const exports = { method: 'GET', path: '/export/realm' };
    const with_ = (export_type: unknown) => ({
      result: 'success',
      msg: '',
      exports: [{ id: 1, acting_user_id: 1, export_time: 1, deleted_timestamp: null, failed_timestamp: null, export_url: null, pending: true, export_type }],
    });
    expect(validateResponse(exports, 200, with_(1)).errors).toBe('');
    expect(validateResponse(exports, 200, with_('public')).errors).not.toBe('');
    expect(validateResponse(exports, 200, with_('public'), { level: 449 }).errors).toBe('');
    expect(validateResponse(exports, 200, with_(1), { level: 449 }).errors).not.toBe('');
  });
});
