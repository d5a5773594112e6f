/**
 * `npm run bench:live`: `@live` queries against polling, for BENCH_USERS users each watching a
 * dashboard and their unread counts, while a bounded stream of messages, edits and reads goes on.
 *
 * Processes (all on loopback):
 * - **this process**: the gateway alone (node:http + graphql-ws), so its CPU is the gateway's;
 * - a **child** holding the emulator (BENCH_USERS users, all subscribed to one `bench` channel),
 *   the clients, and the actor that makes the changes (straight into the emulator, as other
 *   Zulip clients would).
 *
 * Two phases, the same sequence of BENCH_ACTIONS changes, one every BENCH_INTERVAL_MS (a message
 * to `bench` from a rotating user, an edit of the last message by its sender, a user marking it read):
 * 1. **live**: each user has `query @live` for the dashboard and for `unreads { total }` over
 *    graphql-ws. Latency = arrival of a pushed result at the client − arrival of the event that
 *    caused it at the gateway (the user's queue batch, seen by a hub tap; one host clock).
 * 2. **polled**: the same dashboards (and unreads) fetched over HTTP every 5 s per user, staggered.
 * For both: this process's CPU per change, and its upstream calls (long-polls of the event queues
 * excluded; they are the same in both). Bounded: at most BENCH_ACTIONS changes per phase and
 * BENCH_DEADLINE_S in all.
 *
 * Environment: BENCH_USERS (50), BENCH_ACTIONS (24), BENCH_INTERVAL_MS (1000), BENCH_DASHBOARD_LAST
 * (20, messages per dashboard), BENCH_POLL_MS (5000), BENCH_DEADLINE_S (400).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { now, sleep, type BenchUser } from './fanout.js';

const USERS = Number(process.env.BENCH_USERS ?? 50);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 24);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 1000);
const LAST = Number(process.env.BENCH_DASHBOARD_LAST ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 5000);
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 400);

const DASHBOARD = `query Dashboard @live {
  messages(last: ${LAST}) {
    edges { cursor node { zulipId timestamp content
      sender { zulipId fullName avatarUrl role }
      channel { zulipId name description }
      reactions { emojiName user { zulipId fullName } } } }
    pageInfo { hasPreviousPage startCursor }
  }
}`;
const UNREADS = 'query Unreads @live { unreads { total } }';
const POLLED = DASHBOARD.replace('query Dashboard @live {', 'query Polled {\n  unreads { total }');

type Action = { kind: 'message' | 'edit' | 'read'; user: number };

type Ipc =
  | { type: 'ready'; url: string; users: BenchUser[] }
  | { type: 'live'; wsUrl: string }
  | { type: 'live-ready' }
  | { type: 'poll'; url: string }
  | { type: 'act'; action: Action }
  | { type: 'acted' }
  | { type: 'report' }
  | { type: 'arrivals'; arrivals: [user: number, query: 'dashboard' | 'unreads', at: number][]; errors: string[]; polls: number }
  | { type: 'stop' };

function ask<T extends Ipc['type']>(child: ChildProcess, message: Ipc, reply: T): Promise<Extract<Ipc, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (m: Ipc) => {
      if (m.type !== reply) return;
      child.off('message', onMessage);
      resolve(m as Extract<Ipc, { type: T }>);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** The change sequence: messages, then an edit and a read of the last one, users rotating. */
function actions(): Action[] {
  const kinds: Action['kind'][] = ['message', 'message', 'edit', 'read'];
  return Array.from({ length: ACTIONS }, (_, k) => ({ kind: kinds[k % kinds.length]!, user: (k * 7) % USERS }));
}

// ---- the child: emulator, clients and actor ------------------------------------------------------------

async function runWorld(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { seedDemo } = await import('../src/emulator/seed.js');
  const { addChannel, addUser, apiKeyFor, subscribe } = await import('../src/emulator/factory.js');
  const users: BenchUser[] = [];
  const emulator = createEmulator({
    seed: () => {
      const t = Date.now();
      const store = seedDemo(t);
      const channel = addChannel(store, { name: 'bench', description: 'Benchmark traffic', creator_id: null }, t);
      for (let i = 0; i < USERS; i++) {
        const email = `bench${i}@zulip.example.com`;
        subscribe(store, channel.stream_id, addUser(store, { full_name: `Bench ${i}`, delivery_email: email }, t).user_id);
        users.push({ email, apiKey: apiKeyFor(email) });
      }
      return store;
    },
  });
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const basic = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}`;
  const call = (user: number, method: string, path: string, params: Record<string, string>) =>
    emulator.fetch(
      new Request(`${url}/api/v1/${path}`, {
        method,
        headers: { authorization: basic(users[user]!), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params),
      }),
    );
  let last: { id: number; sender: number } | undefined;
  let n = 0;
  const arrivals: [number, 'dashboard' | 'unreads', number][] = [];
  const errors: string[] = [];
  const sockets: WebSocket[] = [];
  let polling: ReturnType<typeof setTimeout>[] = [];
  let polls = 0;

  process.on('message', async (message: Ipc) => {
    switch (message.type) {
      case 'live': {
        await Promise.all(users.map((_, i) => liveClient(message.wsUrl, i)));
        process.send!({ type: 'live-ready' } satisfies Ipc);
        return;
      }
      case 'poll': {
        for (const socket of sockets.splice(0)) socket.close(1000);
        arrivals.length = 0;
        const poll = async (user: number) => {
          try {
            const response = await fetch(message.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: basic(users[user]!) },
              body: JSON.stringify({ query: POLLED }),
            });
            const body = (await response.json()) as { errors?: unknown };
            if (body.errors) errors.push(JSON.stringify(body.errors).slice(0, 200));
            polls++;
          } catch (error) {
            errors.push(String(error));
          }
        };
        polling = users.map((_, i) => {
          const tick = () => {
            void poll(i);
            polling[i] = setTimeout(tick, POLL_MS);
          };
          return setTimeout(tick, (i * POLL_MS) / users.length);
        });
        process.send!({ type: 'live-ready' } satisfies Ipc);
        return;
      }
      case 'act': {
        const { kind, user } = message.action;
        if (kind === 'message' || !last) {
          const response = await call(user, 'POST', 'messages', { type: 'stream', to: 'bench', topic: 'load', content: `message ${++n}` });
          last = { id: ((await response.json()) as { id: number }).id, sender: user };
        } else if (kind === 'edit') {
          await call(last.sender, 'PATCH', `messages/${last.id}`, { content: `message ${n}, edited` });
        } else {
          const reader = user === last.sender ? (user + 1) % users.length : user;
          await call(reader, 'POST', 'messages/flags', { messages: JSON.stringify([last.id]), op: 'add', flag: 'read' });
        }
        process.send!({ type: 'acted' } satisfies Ipc);
        return;
      }
      case 'report':
        for (const timer of polling) clearTimeout(timer);
        process.send!({ type: 'arrivals', arrivals, errors, polls } satisfies Ipc);
        return;
      case 'stop':
        for (const socket of sockets) socket.close(1000);
        await emulator.close();
        process.exit(0);
    }
  });

  /** One user's graphql-ws client with its two live queries; resolves once both answered. */
  function liveClient(wsUrl: string, user: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
      sockets.push(socket);
      let firsts = 0;
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { email: users[user]!.email, apiKey: users[user]!.apiKey } })));
      socket.on('message', (data) => {
        const at = now();
        const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { errors?: unknown } };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: 'dashboard', type: 'subscribe', payload: { query: DASHBOARD } }));
          socket.send(JSON.stringify({ id: 'unreads', type: 'subscribe', payload: { query: UNREADS } }));
        } else if (message.type === 'next') {
          if (message.payload?.errors) errors.push(JSON.stringify(message.payload.errors).slice(0, 200));
          arrivals.push([user, message.id as 'dashboard' | 'unreads', at]);
          if (++firsts === 2) resolve();
        } else if (message.type === 'error') errors.push(JSON.stringify(message.payload).slice(0, 200));
      });
    });
  }

  process.on('disconnect', () => process.exit(1)); // the parent is gone: never outlive it
  process.send!({ type: 'ready', url, users } satisfies Ipc);
}

// ---- the parent: the gateway ------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const { createGateway } = await import('../src/gateway/yoga.js');
  const { createGatewayServer } = await import('../src/gateway/transport/http.js');
  const { sessionKey } = await import('../src/gateway/events/hub.js');
  const { ZulipConnection } = await import('../src/zulip/connection.js');

  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, BENCH_ROLE: 'world' }, execArgv: process.execArgv });
  const deadline = setTimeout(() => {
    console.error(`bench:live: over BENCH_DEADLINE_S (${DEADLINE_S} s), aborting`);
    child.kill();
    process.exit(2);
  }, DEADLINE_S * 1000);
  deadline.unref();
  const world = await new Promise<Extract<Ipc, { type: 'ready' }>>((resolve, reject) => {
    child.on('message', (m: Ipc) => m.type === 'ready' && resolve(m));
    child.once('exit', (code) => reject(new Error(`the child exited early (${code})`)));
  });

  let calls = 0;
  const gateway = createGateway({
    zulipUrl: world.url,
    logging: false,
    fetch: (input, init) => {
      const path = new URL(input instanceof Request ? input.url : input).pathname;
      if (!path.endsWith('/events') || (init?.method ?? 'GET') !== 'GET') calls++;
      return fetch(input, init);
    },
  });
  // When each user's events reach the gateway: the batches of their queue, as the hub receives them.
  const reached = new Map<string, number[]>();
  gateway.hub.addTap({
    opened: (key, session) =>
      void session.listen({
        events: (events) => {
          if (events.some((e) => e.type !== 'heartbeat')) (reached.get(key) ?? reached.set(key, []).get(key)!).push(now());
        },
      }),
  });
  const keys = world.users.map((u) => sessionKey(new ZulipConnection({ baseUrl: world.url, credentials: u })));
  const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
  const url = await served.listen(0, '127.0.0.1');

  const sequence = actions();
  const runActions = async () => {
    const starts: number[] = [];
    const before = process.cpuUsage();
    const callsBefore = calls;
    const executionsBefore = gateway.liveQueries.stats().executions;
    for (const action of sequence) {
      starts.push(now());
      await ask(child, { type: 'act', action }, 'acted');
      await sleep(INTERVAL_MS);
    }
    const used = process.cpuUsage(before);
    return {
      starts,
      cpuMsPerChange: (used.user + used.system) / 1000 / sequence.length,
      calls: calls - callsBefore,
      executions: gateway.liveQueries.stats().executions - executionsBefore,
    };
  };

  // Phase 1: live.
  await ask(child, { type: 'live', wsUrl: url.replace(/^http/, 'ws') }, 'live-ready');
  const directories = gateway.directories!;
  const warmBy = Date.now() + 30_000;
  while (directories.stats().readyDirectories < USERS && Date.now() < warmBy) await sleep(20);
  const phaseStart = now();
  const live = await runActions();
  const { arrivals, errors } = await ask(child, { type: 'report' }, 'arrivals');

  const latencies = { dashboard: [] as number[], unreads: [] as number[] };
  for (const [user, query, at] of arrivals) {
    if (at < phaseStart) continue;
    const action = live.starts.findLastIndex((s) => s <= at);
    if (action < 0) continue;
    const times = reached.get(keys[user]!) ?? [];
    // The first batch of this user's queue after the change was made, and before the push.
    const cause = times.find((t) => t >= live.starts[action]! && t <= at);
    if (cause !== undefined) latencies[query].push(at - cause);
  }
  const summary = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { pushes: xs.length, p50: +percentile(sorted, 50).toFixed(1), p99: +percentile(sorted, 99).toFixed(1), max: +(sorted.at(-1) ?? NaN).toFixed(1) };
  };

  // Phase 2: the same dashboards, polled.
  await ask(child, { type: 'poll', url }, 'live-ready');
  const polled = await runActions();
  const report = await ask(child, { type: 'report' }, 'arrivals');

  console.log(
    JSON.stringify(
      {
        users: USERS,
        changes: sequence.length,
        intervalMs: INTERVAL_MS,
        dashboardLast: LAST,
        // The host's 1-minute load average over its cores: the children and other processes share them.
        host: { cores: availableParallelism(), loadAverage1m: +loadavg()[0]!.toFixed(1) },
        live: {
          cpuMsPerChange: +live.cpuMsPerChange.toFixed(2),
          reExecutionsPerChange: +(live.executions / sequence.length).toFixed(1),
          upstreamCalls: live.calls,
          latencyMs: { unreads: summary(latencies.unreads), dashboard: summary(latencies.dashboard) },
          errors: errors.length,
        },
        polled: {
          everyMs: POLL_MS,
          cpuMsPerChange: +polled.cpuMsPerChange.toFixed(2),
          upstreamCalls: polled.calls,
          polls: report.polls,
          errors: report.errors.length,
        },
      },
      null,
      2,
    ),
  );
  if (errors.length > 0 || report.errors.length > 0) console.error([...errors, ...report.errors].slice(0, 5).join('\n'));
  child.send({ type: 'stop' } satisfies Ipc);
  await served.close();
  await gateway.dispose();
  process.exit(0);
}

if (process.env.BENCH_ROLE === 'world') await runWorld();
else await main();
