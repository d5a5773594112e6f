/**
 * What the fan-out benches (bench/subscriptions.ts, bench/cluster.ts) share: the IPC protocol of
 * their children (bench/subscriptions.ts's emulator and clients roles, test/gateway/cluster/instance.ts),
 * the message-sending phase and the latency summary.
 */
import type { ChildProcess } from 'node:child_process';

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BenchUser {
  email: string;
  apiKey: string;
  /** The user's id, where a bench needs it (bench/subscriptions.ts's DM narrows). */
  userId?: number;
}

/** The IPC messages of bench/subscriptions.ts's children and of instance.ts (the ones used here). */
export type Message =
  | { type: 'ready'; url: string; users: BenchUser[] }
  | { type: 'send'; n: number }
  | { type: 'sent'; n: number; id: number; acceptedAt: number }
  | { type: 'queues' }
  | { type: 'queueCount'; count: number }
  | { type: 'connect'; wsUrl: string; users: BenchUser[]; count: number }
  | { type: 'connected' }
  | { type: 'progress' }
  | { type: 'progressed'; received: number; cpuUs: number }
  | { type: 'report' }
  | { type: 'arrivals'; arrivals: [number, number[]][]; errors: string[]; samples?: Record<string, string> }
  | { type: 'stats'; clients?: number }
  | { type: 'stop' }
  | { type: 'close' };

/** Sends a message to a child and waits for its reply of the given type. */
export function ask<T extends Message['type']>(child: ChildProcess, message: Message, reply: T): Promise<Extract<Message, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (m: Message) => {
      if (m.type !== reply) return;
      child.off('message', onMessage);
      resolve(m as Extract<Message, { type: T }>);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** The child's `ready` message; rejects if the child exits first. */
export const ready = (child: ChildProcess) =>
  new Promise<Extract<Message, { type: 'ready' }>>((resolve, reject) => {
    child.on('message', (m: Message) => m.type === 'ready' && resolve(m));
    child.once('exit', (code) => reject(new Error(`a child exited early (${code})`)));
  });

/**
 * Has the emulator child send `count` messages to the `bench` channel, one every `intervalMs`;
 * returns when each was accepted, by message ID.
 */
export async function sendMessages(emulator: ChildProcess, count: number, intervalMs: number): Promise<Map<number, number>> {
  const accepted = new Map<number, number>();
  for (let n = 0; n < count; n++) {
    const sent = await ask(emulator, { type: 'send', n }, 'sent');
    accepted.set(sent.id, sent.acceptedAt);
    await sleep(intervalMs);
  }
  return accepted;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Fan-out latency (arrival − acceptance) p50/p99/max in milliseconds, over the arrivals of accepted messages. */
export function latencySummary(accepted: Map<number, number>, arrivals: [number, number[]][]): { p50: number; p99: number; max: number } {
  const latencies: number[] = [];
  for (const [id, times] of arrivals) {
    const at = accepted.get(id);
    if (at !== undefined) for (const t of times) latencies.push(t - at);
  }
  latencies.sort((a, b) => a - b);
  return { p50: +percentile(latencies, 50).toFixed(1), p99: +percentile(latencies, 99).toFixed(1), max: +(latencies.at(-1) ?? NaN).toFixed(1) };
}

/** How many deliveries the arrival lists hold. */
export const deliveries = (arrivals: [number, number[]][]) => arrivals.reduce((sum, [, list]) => sum + list.length, 0);
