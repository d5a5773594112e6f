/**
 * `npm run bench:emulator`: builds the large organization (2,000 users, 200 channels, 200,000
 * messages), then measures `GET /messages` through `emulator.fetch` (the whole request path:
 * routing, authentication, parameters, search, serialization, JSON) for:
 * - a channel + topic narrow (the newest 50 messages of a busy topic);
 * - a keyword search over a user's personal history (the newest 50 matches);
 * - a keyword search within one channel.
 * Prints the generation time (wall and CPU) and the median and p99 latency of each case.
 *
 * Environment: BENCH_ITERATIONS (default 200), BENCH_WARMUP (default 20), BENCH_SEED (default 42).
 */
import { createEmulator } from '../src/emulator/app.js';
import { generateLargeOrganization } from '../src/emulator/generate.js';
import type { Store, User } from '../src/emulator/store.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const SEED = Number(process.env.BENCH_SEED ?? 42);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The member subscribed to the most channels: the heaviest personal history. */
function busiestMember(store: Store): User {
  let best: User | undefined;
  let bestCount = -1;
  for (const u of store.users.values()) {
    if (u.is_bot || u.role === 600) continue;
    const count = store.subscribedChannelIds(u.user_id).length;
    if (count > bestCount) [best, bestCount] = [u, count];
  }
  return best!;
}

/** The busiest topic of the second busiest channel the user is in (the busiest is `general`). */
function busyTopic(store: Store, user: User): { channel: string; topic: string } {
  const channels = store
    .subscribedChannelIds(user.user_id)
    .map((id) => store.channels.get(id)!)
    .filter((c) => !c.is_archived)
    .sort((a, b) => store.channelMessageIds(b.stream_id).length - store.channelMessageIds(a.stream_id).length);
  const channel = channels[Math.min(1, channels.length - 1)]!;
  const counts = new Map<string, number>();
  for (const id of store.channelMessageIds(channel.stream_id)) {
    const topic = store.messages.get(id)!.topic;
    counts.set(topic, (counts.get(topic) ?? 0) + 1);
  }
  const topic = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  return { channel: channel.name, topic };
}

async function main(): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const store = generateLargeOrganization({ seed: SEED });
  const generationMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const emulator = createEmulator({ seed: () => store });

  const user = busiestMember(store);
  const auth = `Basic ${Buffer.from(`${user.delivery_email}:${user.api_key}`).toString('base64')}`;
  const { channel, topic } = busyTopic(store, user);
  const cases: { name: string; narrow: unknown[] }[] = [
    { name: `channel+topic (#${channel} > ${topic})`, narrow: [{ operator: 'channel', operand: channel }, { operator: 'topic', operand: topic }] },
    { name: 'search "deploy" (personal history)', narrow: [{ operator: 'search', operand: 'deploy' }] },
    { name: `search "rollback" in #${channel}`, narrow: [{ operator: 'channel', operand: channel }, { operator: 'search', operand: 'rollback' }] },
  ];

  console.log(`large organization: ${store.users.size} users, ${store.channels.size} channels, ${store.messages.size} messages`);
  console.log(`generation: ${generationMs.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`);
  console.log(`requests as ${user.full_name} (${store.subscribedChannelIds(user.user_id).length} channels); ${WARMUP} warm-up + ${ITERATIONS} measured each`);

  for (const c of cases) {
    const url = new URL('http://emulator.bench/api/v1/messages');
    url.searchParams.set('anchor', 'newest');
    url.searchParams.set('num_before', '50');
    url.searchParams.set('num_after', '0');
    url.searchParams.set('narrow', JSON.stringify(c.narrow));
    const durations: number[] = [];
    let returned = 0;
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const start = performance.now();
      const response = await emulator.fetch(new Request(url, { headers: { authorization: auth } }));
      const body = (await response.json()) as { result: string; messages?: unknown[]; msg?: string };
      const elapsed = performance.now() - start;
      if (body.result !== 'success') throw new Error(`${c.name}: ${body.msg}`);
      returned = body.messages!.length;
      if (i >= WARMUP) durations.push(elapsed);
    }
    durations.sort((a, b) => a - b);
    console.log(
      `GET /messages ${c.name}: ${returned} messages; median ${percentile(durations, 50).toFixed(2)} ms, p99 ${percentile(durations, 99).toFixed(2)} ms`,
    );
  }
  await emulator.close();
}

await main();
