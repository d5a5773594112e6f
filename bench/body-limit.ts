/**
 * `npm run bench:body-limit`: what bounding request bodies costs per request, yoga's own
 * `maxRequestBodySize` against ours (src/gateway/plugins/body-limit.ts), side by side in one run.
 *
 * Two yoga servers that differ only in that: the same one-field schema, the same 2 MB limit. Each
 * answers `{ hello }` sequentially, in process through `yoga.fetch` (a JSON body with its
 * Content-Length, as every HTTP client sends one) and over loopback HTTP with yoga's node adapter
 * (undici client in this process: its CPU is counted too, equally for both). CPU per request is
 * process.cpuUsage around each round; rounds alternate between the two servers after a warm-up,
 * and the table shows medians. Every loop is bounded by a count and a time limit, on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuPerCall, median } from './cpu.js';

process.env.NODE_ENV ??= 'production';
const { createSchema, createYoga } = await import('graphql-yoga');
const { Agent, request } = await import('undici');
const { useBodyLimit } = await import('../src/gateway/plugins/body-limit.js');

const LIMIT = 2_000_000;
const ROUNDS = 5;
const LOOP = { count: 3000, maxMs: 3000 };
const BODY = JSON.stringify({ query: '{ hello }' });

const schema = createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
const servers = {
  yoga: createYoga({ schema, logging: false, maxRequestBodySize: LIMIT }),
  ours: createYoga({ schema, logging: false, maxRequestBodySize: false, plugins: [useBodyLimit(LIMIT)] }),
};
type Name = keyof typeof servers;

function inProcess(name: Name): () => Promise<void> {
  return async () => {
    const response = await servers[name].fetch('http://bench.local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)) },
      body: BODY,
    });
    if ((await response.text()) !== '{"data":{"hello":"world"}}') throw new Error(`${name}: unexpected answer`);
  };
}

async function overHttp(name: Name): Promise<{ call: () => Promise<void>; close: () => Promise<void> }> {
  const server: Server = createServer(servers[name]);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const dispatcher = new Agent({ connections: 1 });
  return {
    call: async () => {
      const response = await request(url, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: BODY });
      if ((await response.body.text()) !== '{"data":{"hello":"world"}}') throw new Error(`${name}: unexpected answer`);
    },
    close: async () => {
      await dispatcher.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function compare(label: string, calls: Record<Name, () => Promise<void>>): Promise<void> {
  for (const name of ['yoga', 'ours'] as const) await cpuPerCall(calls[name], LOOP); // warm-up
  const rounds: Record<Name, number[]> = { yoga: [], ours: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['yoga', 'ours'] as const) rounds[name].push((await cpuPerCall(calls[name], LOOP)).cpuMs);
  }
  const [yoga, ours] = [median(rounds.yoga), median(rounds.ours)];
  console.log(`| ${label} | ${yoga.toFixed(3)} ms | ${ours.toFixed(3)} ms | ${(100 * (1 - ours / yoga)).toFixed(0)}% |`);
}

console.log('| request | yoga maxRequestBodySize | plugins/body-limit.ts | saved |');
console.log('|---|---:|---:|---:|');
await compare('in process (`fetch`)', { yoga: inProcess('yoga'), ours: inProcess('ours') });
const http = { yoga: await overHttp('yoga'), ours: await overHttp('ours') };
await compare('loopback HTTP (client CPU included)', { yoga: http.yoga.call, ours: http.ours.call });
await Promise.all([http.yoga.close(), http.ours.close()]);
