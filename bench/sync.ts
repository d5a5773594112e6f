/**
 * `npm run bench:sync`: what a phone pays to reopen after an hour away (docs/mobile-sync.md), on
 * the emulator's generated 20,000-user organization (src/emulator/generate.ts), against what it
 * pays without chatgraph (Zulip's `POST /register` with a mobile client's parameters).
 *
 * The viewer (a member subscribed to 30 channels) runs the README's cold-start query, uses its
 * stamp once, then "sleeps" while one simulated hour happens: 500 messages over 30 channels, 50
 * edits, 20 deletions, 10 topic renames, and read flags changed from another client of the
 * viewer. Then it reopens with `changes(since:)`. Reported: bytes and upstream calls of
 * `changes`, of the cold-start query and of `/register`; p50/p99 of `changes` in process; the
 * change log's estimated size; upstream calls per idle hour (the queue's long-poll, counted while
 * the emulator's clock moves one hour, heartbeat by heartbeat).
 *
 * Emulator and gateway run in this process (the emulator on a manual clock; upstream calls go
 * through `emulator.fetch`, counted at that seam). Bounded: BENCH_SYNC_ROUNDS (default 200) runs
 * of `changes`, 72 heartbeats.
 */
import { readFileSync } from 'node:fs';
import { createEmulator } from '../src/emulator/app.js';
import { ManualClock } from '../src/emulator/clock.js';
import { apiKeyFor, subscribe } from '../src/emulator/factory.js';
import { generateLargeOrganization } from '../src/emulator/generate.js';
import { sessionKey } from '../src/gateway/events/hub.js';
import type { RawEvent } from '../src/gateway/events/model.js';
import { ChangeLog } from '../src/gateway/sync/log.js';
import { createGateway } from '../src/gateway/yoga.js';
import { ZulipConnection, type FetchLike } from '../src/zulip/connection.js';
import { writeReport, type ReportRow } from './report.js';

const USERS = Number(process.env.BENCH_SYNC_USERS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_SYNC_ROUNDS ?? 200);
const HOUR = { messages: 500, channels: 30, edits: 50, deletions: 20, renames: 10, reads: 200 };
/** zulip-flutter's registration: every event type, these capabilities (lib/api/route/events.dart). */
const MOBILE_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  empty_topic_name: true,
};

const readme = readFileSync(new URL('../docs/examples.md', import.meta.url), 'utf8');
const COLD_START = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!).find((q) => /query ColdStart\b/.test(q))!;
/** What a phone asks on reopen: the conversation list's newest messages, by ids of what it already holds (users, channels). */
const REOPEN = `query Reopen($since: String!) { changes(since: $since) {
  stamp resyncRequired
  messages(first: 3) { created { zulipId timestamp content topic sender { zulipId } channel { zulipId } }
             conversations { type channelId topic userIds newMessages hasMore before } edited { messageId content topic channelId } deletedIds }
  flags { flag set cleared } reactions { messageId userId emojiName added }
  unreads { total mentions channels { channelId count topics { topic count } } directMessages { userIds count } }
  users { changed { zulipId fullName avatarUrl } removedIds } channels { changed { zulipId name description } removedIds }
  userGroups { changed { zulipId name } removedIds } subscriptions { changed { color isMuted pinToTop channel { zulipId } } removedIds }
  settings { name value } otherEvents } }`;
/** The same with every new message (20 per conversation) and its sender and channel objects: context. */
const FULL = REOPEN.replace('messages(first: 3)', 'messages(first: 20)').replace('sender { zulipId } channel { zulipId }', 'id sender { id zulipId fullName avatarUrl } channel { id zulipId name }');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

async function main(): Promise<void> {
  const started = performance.now();
  const clock = new ManualClock(Date.now());
  const emulator = createEmulator({ clock, settings: { messageContentEditLimitSeconds: null, moveMessagesWithinStreamLimitSeconds: null }, seed: () => generateLargeOrganization({ users: USERS, channels: 60, messages: 20_000, nowMs: clock.now() }) });
  const store = emulator.store;
  const users = [...store.users.values()];
  const viewer = users.find((u) => u.role === 400 && !u.is_bot)!;
  const senders = users.filter((u) => u.role === 200 || u.role === 100).slice(0, 4); // administrators and the owner: may edit, move and delete
  const channels = [...store.channels.values()].filter((c) => !c.invite_only).slice(0, HOUR.channels);
  for (const channel of channels) {
    subscribe(store, channel.stream_id, viewer.user_id);
    for (const sender of senders) subscribe(store, channel.stream_id, sender.user_id);
  }
  console.log(`organization: ${store.users.size} users, ${store.channels.size} channels, ${store.messages.size} messages (${Math.round(performance.now() - started)} ms)`);

  // Every upstream call the gateway makes, by route; the event queue's own calls apart.
  const calls: string[] = [];
  const counted: FetchLike = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/^\/api\/v1\//, '')}`);
    return emulator.fetch(new Request(input, init));
  };
  const queueCall = (c: string) => c === 'GET events' || c === 'POST register' || c === 'DELETE events';
  // The rate-limit buckets read the emulator's clock, as its X-RateLimit-Reset headers do (it moves an hour here).
  const budgetClock = { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout) };
  const gateway = createGateway({ zulipUrl: 'http://zulip.bench', fetch: counted, logging: false, graphiql: false, budgetClock });
  // The hour's batches as the viewer's session received them, to weigh a change log of them alone.
  const batches: RawEvent[][] = [];
  let capturing = false;
  gateway.hub.addTap({ opened: (_key, session) => void session.listen({ events: (events) => void (capturing && batches.push(structuredClone(events))) }) });
  const credentials = { email: viewer.delivery_email, apiKey: apiKeyFor(viewer.delivery_email) };
  const authorization = `Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64')}`;
  const connection = new ZulipConnection({ baseUrl: 'http://zulip.bench', credentials });
  const post = (query: string, variables: object = {}, accept = 'application/json') =>
    gateway.fetch('http://gateway.bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization }, body: JSON.stringify({ query, variables }) });
  const rest = async (who: { delivery_email: string }, method: string, path: string, params: Record<string, unknown>) => {
    const body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const auth = `Basic ${Buffer.from(`${who.delivery_email}:${apiKeyFor(who.delivery_email)}`).toString('base64')}`;
    const response = await emulator.fetch(new Request(`http://zulip.bench/api/v1/${path}`, { method, headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body }));
    const json = (await response.json()) as Record<string, unknown>;
    if (json.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
  const caughtUp = async () => {
    const key = sessionKey(connection);
    const newest = () => Math.max(-1, ...emulator.queues.queuesOf(viewer.user_id).map((q) => q.nextEventId - 1));
    for (let i = 0; i < 3000; i++) {
      const directory = gateway.directories?.registry.get(key);
      if (directory?.ready && directory.lastEventId >= newest()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the gateway did not catch up');
  };

  // ---- cold start (the README's query, multipart: its bytes are what the phone downloads)
  calls.length = 0;
  let t = performance.now();
  const cold = await post(COLD_START, {}, 'multipart/mixed');
  const coldBody = await cold.text();
  const coldMs = performance.now() - t;
  const coldCalls = calls.filter((c) => !queueCall(c));
  const coldQueueCalls = calls.filter(queueCall).filter((c) => c !== 'GET events');
  const stamp = /"stamp":"([^"]+)"/.exec(coldBody)?.[1];
  if (!stamp) throw new Error('the cold start carried no stamp');
  await caughtUp();
  const first = (await (await post(REOPEN, { since: stamp })).json()) as { data: { changes: { resyncRequired: boolean } } };
  if (first.data.changes.resyncRequired) throw new Error('a fresh stamp asked for a resync');

  // ---- /register as a mobile client (no chatgraph): every event type and state
  const register = await rest(viewer, 'POST', 'register', { client_capabilities: MOBILE_CAPABILITIES, apply_markdown: true, client_gravatar: true, include_subscribers: false, slim_presence: true });
  const registerBytes = Buffer.byteLength(JSON.stringify(register));
  await rest(viewer, 'DELETE', 'events', { queue_id: register.queue_id as string });

  // ---- the hour away
  capturing = true;
  const sent: number[] = [];
  for (let i = 0; i < HOUR.messages; i++) {
    const channel = channels[i % channels.length]!;
    const result = await rest(senders[i % senders.length]!, 'POST', 'messages', { type: 'stream', to: channel.name, topic: `hour ${i % 3}`, content: `Message **${i}** of the hour, about the release and its [notes](https://example.com/${i}).` });
    sent.push(result.id as number);
    clock.advance(3_600_000 / HOUR.messages / 2);
  }
  const older = [...store.messages.values()].filter((m) => m.type === 'stream' && channels.some((c) => c.stream_id === m.stream_id) && !sent.includes(m.id)).slice(-200);
  const olderIds = older.length > 0 ? older.map((m) => m.id) : sent.slice(0, 100);
  for (let i = 0; i < HOUR.edits; i++) {
    const id = i % 2 === 0 ? sent[i * 3]! : olderIds[i % olderIds.length]!;
    const owner = store.messages.get(id)!;
    await rest(users.find((u) => u.user_id === owner.sender_id) ?? senders[0]!, 'PATCH', `messages/${id}`, { content: `Edited ${i}: the release moved to Thursday.` });
  }
  for (let i = 0; i < HOUR.deletions; i++) await rest(senders[0]!, 'DELETE', `messages/${i % 2 === 0 ? sent[400 + i]! : olderIds[100 + i]!}`, {});
  for (let i = 0; i < HOUR.renames; i++) {
    await rest(senders[0]!, 'PATCH', `messages/${sent[200 + i * 7]!}`, { topic: `renamed ${i}`, propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false });
  }
  await rest(viewer, 'POST', 'messages/flags', { messages: sent.slice(0, HOUR.reads), op: 'add', flag: 'read' });
  clock.advance(1000);
  await caughtUp();
  capturing = false;

  // ---- reopen: changes(since:)
  calls.length = 0;
  const reopen = await post(REOPEN, { since: stamp });
  const reopenBody = await reopen.text();
  const reopenCalls = calls.filter((c) => c !== 'GET events');
  const answer = JSON.parse(reopenBody) as { errors?: unknown; data: { changes: { resyncRequired: boolean; messages: { created: unknown[]; edited: unknown[]; deletedIds: unknown[] } } } };
  if (answer.errors || answer.data.changes.resyncRequired) throw new Error(`changes failed: ${reopenBody.slice(0, 500)}`);
  const times: number[] = [];
  (globalThis as { gc?: () => void }).gc?.(); // the hour's garbage (mostly the emulator's) is not the reopen's
  for (let i = 0; i < ROUNDS; i++) {
    t = performance.now();
    await (await post(REOPEN, { since: stamp })).text();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const fullBytes = Buffer.byteLength(await (await post(FULL, { since: stamp })).text());
  const logBytes = gateway.sync!.bytesOf(connection);
  // The heap of a change log of the hour alone: fed copies of the batches, so it shares no string with the gateway's other state.
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  collect();
  collect();
  let heap = process.memoryUsage().heapUsed;
  let isolated: ChangeLog | undefined = new ChangeLog();
  batches.forEach((batch, i) => {
    isolated!.stage(structuredClone(batch));
    isolated!.commit({ generation: 'bench', seq: i + 1 });
  });
  collect();
  collect();
  const isolatedHeap = process.memoryUsage().heapUsed - heap;
  const isolatedEstimate = isolated.bytes;
  isolated = undefined;
  heap = 0;
  // The log's heap, measured: what a purge of it frees (after full collections; needs --expose-gc).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  gateway.sync!.purge(connection);
  gc?.();
  gc?.();
  const logHeap = heapAfter - process.memoryUsage().heapUsed;

  // ---- an idle hour: the emulator's clock moves heartbeat by heartbeat; count every upstream call
  calls.length = 0;
  const polls = () => calls.filter((c) => c === 'GET events').length;
  for (let beat = 0; beat < 72; beat++) {
    const before = polls();
    clock.advance(50_000);
    for (let i = 0; i < 500 && polls() === before; i++) await new Promise((r) => setTimeout(r, 2));
  }
  const idleCalls = calls.length;

  await gateway.dispose();
  await emulator.close();

  const created = answer.data.changes.messages.created.length;
  const rows: ReportRow[] = [
    { metric: 'changes(since:) after an hour away: bytes / POST /register bytes (mobile parameters)', value: Math.round((Buffer.byteLength(reopenBody) / registerBytes) * 10000) / 100, unit: '%', target: '≤ 1%', met: Buffer.byteLength(reopenBody) <= registerBytes / 100 },
    { metric: 'changes(since:) upstream calls on reopen', value: reopenCalls.length, unit: 'calls', target: '0', met: reopenCalls.length === 0 },
    { metric: 'changes(since:) latency p50, in process', value: Math.round(percentile(times, 50) * 100) / 100, unit: 'ms' },
    { metric: 'changes(since:) latency p99, in process', value: Math.round(percentile(times, 99) * 100) / 100, unit: 'ms', target: '≤ 50 ms', met: percentile(times, 99) <= 50 },
    { metric: 'change log retained for the hour, heap measured (a log of the hour alone)', value: kb(isolatedHeap), unit: 'KB', target: '≤ 200 KB', met: isolatedHeap <= 200 * 1024 },
    { metric: 'change log retained for the hour, as the memory cap estimates it', value: kb(logBytes), unit: 'KB' },
    { metric: 'upstream calls per idle hour (the long-poll)', value: idleCalls, unit: 'calls', target: '≤ 600 (5% of 12,000)', met: idleCalls <= 600 },
    { metric: 'changes(since:) bytes', value: kb(Buffer.byteLength(reopenBody)), unit: 'KB' },
    { metric: 'POST /register bytes (mobile parameters)', value: kb(registerBytes), unit: 'KB' },
    { metric: 'cold-start query bytes', value: kb(Buffer.byteLength(coldBody)), unit: 'KB' },
    { metric: 'cold-start query upstream calls (besides the queue registration)', value: coldCalls.length, unit: 'calls' },
    { metric: 'change log retained for the hour, heap freed by purging it', value: kb(logHeap), unit: 'KB' },
    { metric: 'changes(since:) bytes, every new message (first: 20) with sender and channel objects', value: kb(fullBytes), unit: 'KB' },
  ];
  const notes = [
    `${USERS} users; the hour: ${HOUR.messages} messages over ${HOUR.channels} channels, ${HOUR.edits} edits, ${HOUR.deletions} deletions, ${HOUR.renames} topic renames, ${HOUR.reads} messages marked read from another client`,
    `changes: ${created} new messages returned (first: 3 per conversation), ${answer.data.changes.messages.edited.length} edited, ${answer.data.changes.messages.deletedIds.length} deleted; ${ROUNDS} rounds`,
    `isolated log: ${batches.length} batches, estimate ${kb(isolatedEstimate)} KB; run with --expose-gc (npm run bench:sync does) for the heap figures`,
    `cold start: ${Math.round(coldMs)} ms, calls ${coldCalls.join(', ') || 'none'}; queue: ${coldQueueCalls.join(', ')}`,
  ];
  for (const row of rows) console.log(`${row.metric}: ${row.value} ${row.unit}${row.target ? ` (target ${row.target}: ${row.met ? 'met' : 'MISSED'})` : ''}`);
  for (const note of notes) console.log(`- ${note}`);
  writeReport({ bench: 'sync', rows, notes });
}

await main();
