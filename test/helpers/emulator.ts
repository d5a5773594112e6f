/**
 * Emulator-side fixtures: an emulator set up for one test (or one describe block), connections as
 * its users through the REST client, the lookups tests make in its store, event queues, and the two
 * checks every emulator test makes (a call fails with a Zulip error; a body matches the OpenAPI
 * description).
 *
 * ```ts
 * const t = setupEmulator({ clock: new ManualClock(), eventTypes: ['stream'] });
 * const events = await t.listen('hamlet');
 * await updateStream(t.as('iago'), { streamId: t.channelId('general'), description: 'new' });
 * expect((await events()).map((e) => e.op)).toEqual(['update']);
 * const e = await caughtApiError(updateStream(t.as('hamlet'), { streamId: 9999, description: 'x' }));
 * expect(e.message).toBe('Invalid channel ID');
 * ```
 *
 * The emulator is driven through `src/zulip`, so the client is the contract between the two.
 */
import { afterAll, expect, onTestFinished } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/app.js';
import type { Clock } from '../../src/emulator/clock.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { Channel, Message, Store, User } from '../../src/emulator/store.js';
import { ZulipConnection, type Credentials } from '../../src/zulip/connection.js';
import { ZulipApiError } from '../../src/zulip/errors.js';
import { documentedLevel, validateResponse } from './openapi.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

/** The base URL of connections to a set-up emulator (it answers any host, no port is opened). */
export const EMULATOR_URL = 'http://emulator.test';

/** Connections fail at the first error: tests assert on it rather than wait for retries. */
const NO_RETRY = { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 };

/** An event as `GET /events` returns it. */
export type QueuedEvent = Record<string, unknown> & { type: string; id: number };

export interface EmulatorSetupOptions<C extends Clock = Clock> extends Omit<EmulatorOptions, 'clock'> {
  /** The emulator's clock; pass a `ManualClock` to move time by hand. @default the system clock */
  clock?: C;
  /** The event types `listen` registers for when it is given none. @default every type (no `event_types`) */
  eventTypes?: string[];
  /**
   * Close the emulator when the test that set it up finishes or, when set up while a describe
   * block is collected, after that block's tests (see {@link closeWhenDone}). @default true
   */
  close?: boolean;
}

/** Lookups in an emulator's store by the names tests use. */
export interface StoreLookups {
  /**
   * A user's record: by login (the local part of the email the user had when the lookups were
   * made, so `'lear'` and `'hamlet-bot'` work too), else by email (API or real) as the store has it now.
   */
  user(who: string): User;
  /** The user ID of {@link user}. */
  userId(who: string): number;
  channel(name: string): Channel;
  channelId(name: string): number;
  /** The first message in the store whose Markdown source contains `text`. */
  messageWith(text: string): Message;
}

/** Lookups in `store`; make them before a test changes anyone's email. */
export function storeLookups(store: Store): StoreLookups {
  // Logins as the users are now: a test that changes someone's email still finds them by login.
  const idByLogin = new Map([...store.users.values()].map((u) => [u.delivery_email.split('@')[0]!, u.user_id]));
  const user = (who: string): User => {
    const id = who.includes('@') ? undefined : idByLogin.get(who);
    return (id === undefined ? store.userByEmail(who.includes('@') ? who : `${who}@${store.realm.host}`) : store.users.get(id))!;
  };
  const channel = (name: string): Channel => store.channelByName(name)!;
  return {
    user,
    userId: (who) => user(who).user_id,
    channel,
    channelId: (name) => channel(name).stream_id,
    messageWith: (text) => [...store.messages.values()].find((m) => m.content.includes(text))!,
  };
}

export interface EmulatorSetup<C extends Clock = Clock> extends StoreLookups {
  emulator: Emulator;
  /** The emulator's clock (the one passed in options, or the system clock). */
  clock: C;
  store: Store;
  /**
   * A connection (no retries) as a user: a demo login (`'hamlet'`, with the demo credentials), an
   * email of any user in the store, or a user record (with the credentials the store holds now).
   */
  as(who: string | User): ZulipConnection;
  /** A connection (no retries) with explicit credentials, right or wrong. */
  connect(credentials: Credentials | undefined): ZulipConnection;
  /**
   * Registers a queue as `login` and returns a function that drains it (`dont_block`): each call
   * returns the events that arrived since the previous call, with their ids, heartbeats left out.
   * @param eventTypes @default the `eventTypes` option
   * @param params extra `POST /register` parameters (`client_capabilities`, `narrow`…)
   */
  listen(login: string, eventTypes?: string[], params?: WireParams): Promise<() => Promise<QueuedEvent[]>>;
}

/** An emulator for a test, with connections as its users and lookups in its store. */
export function setupEmulator<C extends Clock = Clock>(options: EmulatorSetupOptions<C> = {}): EmulatorSetup<C> {
  const { eventTypes: defaultEventTypes, close = true, ...emulatorOptions } = options;
  const emulator = createEmulator(emulatorOptions);
  if (close) closeWhenDone(() => emulator.close());
  const { store } = emulator;
  const fetch = documentedFetch(emulator);
  const connect = (credentials: Credentials | undefined) =>
    new ZulipConnection({ baseUrl: EMULATOR_URL, credentials, fetch, retry: NO_RETRY });
  const credentialsOf = (u: User): Credentials => ({ email: u.delivery_email, apiKey: u.api_key });

  const as = (who: string | User): ZulipConnection => {
    if (typeof who !== 'string') return connect(credentialsOf(who));
    if (who.includes('@')) return connect(credentialsOf(store.userByEmail(who)!));
    const { email, apiKey } = demoUser(who);
    return connect({ email, apiKey });
  };

  return {
    emulator,
    clock: emulator.clock as C,
    store,
    ...storeLookups(store),
    as,
    connect,
    async listen(login, eventTypes = defaultEventTypes, params = {}) {
      const conn = as(login);
      const queueId = await registerEventQueue(conn, eventTypes, params);
      let last = -1;
      return async () => {
        const events = await eventsOf<QueuedEvent>(conn, queueId, { after: last, keepIds: true });
        last = events.at(-1)?.id ?? last;
        return events.filter((e) => e.type !== 'heartbeat');
      };
    },
  };
}

/**
 * A fetch served by `emulator` that checks every successful API answer against its documented
 * shape at the feature level the emulator claims (test/helpers/openapi.ts): each emulator test of
 * an operation validates its response through this one place. A body out of shape fails the
 * running test (a soft failure, so the test's own assertions still report) and is still returned.
 */
export function documentedFetch(emulator: Emulator): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await emulator.fetch(request);
    await expectDocumented(request, response, emulator.settings.featureLevel);
    return response;
  };
}

/**
 * Zulip's deprecated aliases of an operation, which its current OpenAPI description no longer
 * lists (https://zulip.com/api/update-settings): they answer as the operation does.
 */
const ALIASES: Record<string, string> = { '/api/v1/settings/display': '/settings', '/api/v1/settings/notifications': '/settings' };

/**
 * Fields Zulip sends that its OpenAPI description leaves out: `GET /server_settings` answers the
 * `service_*` fields of zerver/views/auth.py get_server_settings alongside the documented ones.
 */
const UNDOCUMENTED_FIELDS: Record<string, string[]> = {
  '/api/v1/server_settings': ['service_feature_level', 'service_version', 'service_merge_base'],
  // Not yet checked against zerver/views/development: the emulator's development login list adds these.
  '/api/v1/dev_list_users': ['user_id', 'full_name', 'role'],
};

/**
 * Checks a successful JSON answer of the API (`/api/v1/…`) against its documented shape at
 * `level`. An emulator set below the fixture's level (a test of an older server's behaviour) is
 * not checked: the facts describe the API from that level on only.
 */
export async function expectDocumented(request: Request, response: Response, level: number): Promise<void> {
  const path = new URL(request.url).pathname;
  if (!path.startsWith('/api/v1/') || response.status !== 200 || level < documentedLevel()) return;
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return;
  const body = (await response.clone().json()) as { result?: unknown };
  if (body.result !== 'success') return;
  const allowExtra = UNDOCUMENTED_FIELDS[path] ?? [];
  const { errors } = validateResponse({ method: request.method, path: ALIASES[path] ?? path }, 200, body, { level, allowExtra });
  expect.soft(errors, `${request.method} ${path} answers in its documented shape at feature level ${level}`).toBe('');
}

/**
 * Runs `close` when the current test finishes or, when called outside a test (while a describe
 * block, or the file, is collected), after the tests of that block.
 */
export function closeWhenDone(close: () => Promise<void>): void {
  try {
    onTestFinished(async () => {
      await close();
    });
  } catch {
    // Not inside a test: vitest refuses onTestFinished, and the enclosing suite owns the resource.
    afterAll(close);
  }
}

/**
 * `POST /register` for `eventTypes` (every type when undefined), fetching no initial state.
 * @param params further parameters; they override the defaults
 * @returns the queue ID
 */
export async function registerEventQueue(
  conn: ZulipConnection,
  eventTypes: string[] | undefined,
  params: WireParams = {},
): Promise<string> {
  const body = await conn.request<{ queue_id: string }>('register', 'POST', 'register', {
    ...(eventTypes && { event_types: json(eventTypes) }),
    fetch_event_types: json([]),
    ...params,
  });
  return body.queue_id;
}

export interface EventsOfOptions {
  /** `last_event_id`: return the events after this one. @default -1 (all the queue holds) */
  after?: number;
  /** Keep each event's `id`. @default false */
  keepIds?: boolean;
  /** Also check the whole `GET /events` body against the OpenAPI description. @default false */
  validate?: boolean;
  /** With `validate`: keys newer than the OpenAPI file to allow. @default [] */
  allowExtra?: string[];
}

/** The events in a queue, without waiting (`dont_block`). */
export async function eventsOf<E = Record<string, unknown>>(
  conn: ZulipConnection,
  queueId: string,
  options: EventsOfOptions = {},
): Promise<E[]> {
  const body = await conn.request<{ events: QueuedEvent[] }>('get-events', 'GET', 'events', {
    queue_id: raw(queueId),
    last_event_id: json(options.after ?? -1),
    dont_block: json(true),
  });
  if (options.validate) expectValidResponse('get', '/events', body, options.allowExtra);
  const events = options.keepIds ? body.events : body.events.map(({ id: _id, ...event }) => event);
  return events as E[];
}

/** The rejection of `promise` (which must reject), whatever it is. */
export async function caughtError(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
}

/** The `ZulipApiError` that `promise` must reject with. */
export async function caughtApiError(promise: Promise<unknown>): Promise<ZulipApiError> {
  const error = await caughtError(promise);
  expect(error).toBeInstanceOf(ZulipApiError);
  return error as ZulipApiError;
}

/**
 * Channel fields newer than the facts fixture (feature level 247; https://zulip.com/api/get-streams); subscriptions carry
 * them too. For `allowExtra`.
 */
export const NEWER_CHANNEL_FIELDS = [
  'is_archived',
  'creator_id',
  'is_recently_active',
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
];

/**
 * Expects `body` to be a documented 200 response of `method path` in the OpenAPI file.
 * @param allowExtra keys newer than the file (feature level 247) to allow @default []
 */
export function expectValidResponse(method: string, path: string, body: unknown, allowExtra: string[] = []): void {
  expect(validateResponse({ method, path }, 200, body, { allowExtra }).errors).toBe('');
}
