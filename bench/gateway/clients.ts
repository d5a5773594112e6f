/**
 * The clients `npm run bench:gateway` compares: the gateway over HTTP and in process
 * (`gateway.fetch`), and the same upstream calls made directly, with undici and with this repo's
 * REST client (src/zulip, as the gateway makes them). Each call returns the upstream requests it
 * caused (the gateway's `extensions.upstreamRequests`; 1 per direct call).
 */
import { type Agent, request } from 'undici';
import { DASHBOARD_QUERY as README_DASHBOARD } from '../../src/gateway/graphiql.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { getServerSettings } from '../../src/zulip/routes/server-settings.js';
import { getUser } from '../../src/zulip/routes/users.js';

export const SINGLE_QUERY = 'query One($id: Long!) { message(id: $id) { zulipId senderFullName content timestamp } }';

/** The bench's own dashboard: 100 newest messages with senders, channels and reaction users. */
export const DASHBOARD_QUERY = /* GraphQL */ `
  query Dashboard {
    messages(last: 100) {
      edges {
        node {
          zulipId content timestamp
          sender { fullName avatarUrl role }
          channel { name description }
          reactions { emojiName user { fullName } }
        }
      }
    }
  }
`;

/** docs/examples.md's dashboard example, as written there (global ids, cursors, page info; a test checks it is verbatim). */
export const README_DASHBOARD_QUERY = README_DASHBOARD;

/** docs/examples.md's server settings example: public, one `GET /server_settings`. */
export const SERVER_SETTINGS_QUERY = '{ serverSettings { realmName realmUrl featureLevel serviceVersion externalAuthenticationMethods { name displayName loginUrl } } }';

/** One user by id: from the caller's live directory once it is warm, with no upstream call. */
export const USER_QUERY = 'query User($id: Long!) { user(id: $id) { id fullName email role avatarUrl isActive timezone } }';

export type Call = () => Promise<number>;

/** `gateway.fetch`, in process. */
export type GatewayFetch = (url: string, init: RequestInit) => Response | Promise<Response>;

export interface Clients {
  singleGateway: Call;
  singleDirect: Call;
  dashboardGateway: Call;
  dashboardNaive: Call;
  /** The same as singleGateway/dashboardGateway but in-process (no HTTP hop: `gateway.fetch`), for CPU. */
  singleInProcess: Call;
  dashboardInProcess: Call;
  /** `{ __typename }` in-process: the request pipeline with no resolver and no upstream call. */
  typenameInProcess: Call;
  /** The single REST call through the global fetch (for reference: the WHATWG fetch machinery's cost). */
  singleDirectFetch: Call;
  /** README's dashboard, in process. */
  readmeDashboardInProcess: Call;
  /** README's dashboard, in process, through a gateway built with `compiledExecution: false`. */
  readmeDashboardInterpreted: Call;
  /** `serverSettings` in process, without credentials (as the README's curl example sends it). */
  settingsInProcess: Call;
  /** `GET /server_settings` through src/zulip, the call the gateway makes for it. */
  settingsDirect: Call;
  /** `user(id)` in process; throws unless it cost no upstream call (the live directory must be warm). */
  userInProcess: Call;
  /** `GET /users/{id}` through src/zulip. */
  userDirect: Call;
  /** The REST client's keep-alive pool, closed with the bench. */
  close(): Promise<void>;
}

export interface Target {
  gatewayUrl: string;
  zulipUrl: string;
  email: string;
  apiKey: string;
  messageId: number;
  userId: number;
  gatewayFetch: GatewayFetch;
  /** The same gateway but with graphql's interpreter for every query (`compiledExecution: false`). */
  interpretedFetch: GatewayFetch;
  clientAgent: Agent;
}

export function makeClients(t: Target): Clients {
  const auth = `Basic ${Buffer.from(`${t.email}:${t.apiKey}`).toString('base64')}`;
  const credentials = { email: t.email, apiKey: t.apiKey };
  const graphql = async (query: string, variables: Record<string, unknown>): Promise<number> => {
    const { statusCode, body } = await request(`${t.gatewayUrl}/graphql`, {
      method: 'POST',
      dispatcher: t.clientAgent,
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ query, variables }),
    });
    return checkGraphQL(statusCode, await body.json());
  };
  const inProcess = async (query: string, variables: Record<string, unknown>, authorized = true, gatewayFetch = t.gatewayFetch): Promise<number> => {
    const body = JSON.stringify({ query, variables });
    // With its Content-Length, as every HTTP client sends a JSON body (plugins/body-limit.ts counts
    // the bytes of a body without one as they arrive).
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (authorized) headers.authorization = auth;
    // A URL and init, not a Request: yoga builds its own request object from them, as its node
    // adapter does from an HTTP request, and the client's Request (an AbortSignal with it) is not the gateway's cost.
    const response = await gatewayFetch('http://gateway.localhost/graphql', { method: 'POST', headers, body });
    return checkGraphQLText(response.status, await response.text());
  };
  const rest = async (path: string): Promise<Record<string, unknown>> => {
    const { statusCode, body } = await request(`${t.zulipUrl}/api/v1/${path}`, {
      dispatcher: t.clientAgent,
      headers: { authorization: auth, accept: 'application/json' },
    });
    const json = (await body.json()) as Record<string, unknown>;
    if (statusCode !== 200 || json.result !== 'success') throw new Error(`REST ${path}: ${statusCode} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  // The REST client as an application would use it: its own keep-alive pool, one connection per identity.
  const anonymous = new ZulipConnection({ baseUrl: t.zulipUrl });
  const asViewer = anonymous.withCredentials(credentials);
  return {
    singleGateway: () => graphql(SINGLE_QUERY, { id: t.messageId }),
    singleInProcess: () => inProcess(SINGLE_QUERY, { id: t.messageId }),
    dashboardGateway: () => graphql(DASHBOARD_QUERY, {}),
    dashboardInProcess: () => inProcess(DASHBOARD_QUERY, {}),
    readmeDashboardInProcess: () => inProcess(README_DASHBOARD_QUERY, {}),
    readmeDashboardInterpreted: () => inProcess(README_DASHBOARD_QUERY, {}, true, t.interpretedFetch),
    typenameInProcess: () => inProcess('{ __typename }', {}),
    settingsInProcess: () => inProcess(SERVER_SETTINGS_QUERY, {}, false),
    async settingsDirect() {
      const settings = await getServerSettings(anonymous);
      if (typeof settings.zulip_feature_level !== 'number') throw new Error('GET /server_settings: no feature level');
      return 1;
    },
    async userInProcess() {
      const upstream = await inProcess(USER_QUERY, { id: t.userId });
      if (upstream !== 0) throw new Error(`user(id) cost ${upstream} upstream calls: the live directory is not serving it`);
      return upstream;
    },
    async userDirect() {
      const { user } = await getUser(asViewer, { userId: t.userId });
      if (user.user_id !== t.userId) throw new Error('GET /users/{id}: another user');
      return 1;
    },
    async singleDirectFetch() {
      const response = await fetch(`${t.zulipUrl}/api/v1/messages/${t.messageId}`, { headers: { authorization: auth, accept: 'application/json' } });
      const json = (await response.json()) as { result?: string };
      if (json.result !== 'success') throw new Error(`REST fetch: ${response.status}`);
      return 1;
    },
    async singleDirect() {
      await rest(`messages/${t.messageId}`);
      return 1;
    },
    async dashboardNaive() {
      const page = await rest('messages?anchor=newest&num_before=100&num_after=0&apply_markdown=true&client_gravatar=false');
      const messages = page.messages as { sender_id: number; stream_id?: number; reactions: { user_id: number }[] }[];
      const users = new Set<number>();
      const channels = new Set<number>();
      for (const m of messages) {
        users.add(m.sender_id);
        if (m.stream_id !== undefined) channels.add(m.stream_id);
        for (const r of m.reactions) users.add(r.user_id);
      }
      await Promise.all([
        ...[...users].map((id) => rest(`users/${id}?client_gravatar=false`)),
        ...[...channels].map((id) => rest(`streams/${id}`)),
      ]);
      return 1 + users.size + channels.size;
    },
    close: () => anonymous.close(),
  };
}

/**
 * {@link checkGraphQL} for an answer read as text, parsed only when it has an error: parsing a
 * dashboard's answer is its client's work, which an in-process measurement would count as the
 * gateway's. A JSON string cannot hold `"errors"` unescaped, so an answer without it has no errors.
 */
export function checkGraphQLText(status: number, text: string): number {
  if (status !== 200 || text.includes('"errors"')) return checkGraphQL(status, JSON.parse(text));
  const reported = /"upstreamRequests":(\d+)/.exec(text.slice(text.lastIndexOf('"extensions"')));
  return reported ? Number(reported[1]) : Number.NaN;
}

/** The upstream requests a GraphQL answer reports; throws on an error status or any GraphQL error. */
export function checkGraphQL(status: number, body: unknown): number {
  const result = body as { errors?: unknown[]; extensions?: { upstreamRequests?: number } };
  if (status !== 200 || result.errors) throw new Error(`GraphQL ${status}: ${JSON.stringify(result.errors ?? body).slice(0, 300)}`);
  return result.extensions?.upstreamRequests ?? Number.NaN;
}
