/**
 * The fan-out floor of `npm run bench:subscriptions`: a bare `ws` server, in a process of its own,
 * that holds the same sockets and, for each event, sends every subscriber the bytes the gateway
 * sent for the same operation, pre-serialized once per (event, operation), with one `send` per
 * socket. It speaks just enough graphql-transport-ws for the bench's clients: `connection_ack`
 * to `connection_init`, and it remembers each `subscribe` (its id and document). No credentials,
 * no upstream, no GraphQL: what is left is the cost of the sockets themselves, which the gateway
 * cannot go below.
 *
 * IPC (from bench/subscriptions.ts): `floorStart` (frames to send, by document: the gateway's text
 * with `%ID%` where the message id goes) → `floorReady` { url }; `floorMark` → `floorMarked`
 * (RSS and CPU now); `broadcast` { zulipId } → `broadcasted`; `floorReport` → `floorReported`
 * (CPU user and system since the mark, peak RSS). Sampling RSS every 20 ms, as the gateway side does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type FloorMessage =
  | { type: 'floorStart'; templates: Record<string, string> }
  | { type: 'floorReady'; url: string }
  | { type: 'floorMark' }
  | { type: 'floorMarked'; rss: number; subscribed: number }
  | { type: 'broadcast'; zulipId: number }
  | { type: 'broadcasted'; sent: number }
  | { type: 'floorReport' }
  | { type: 'floorReported'; cpu: NodeJS.CpuUsage; peakRss: number }
  | { type: 'stop' };

export async function runFloor(): Promise<void> {
  let templates: Record<string, string> = {};
  /** Each document's subscribers: the socket and its operation id. */
  const subscribers = new Map<string, { socket: WebSocket; id: string }[]>();
  let subscribed = 0;
  const server = createServer();
  const wss = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { query?: string } };
      if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
      else if (message.type === 'subscribe') {
        const query = message.payload?.query ?? '';
        (subscribers.get(query) ?? subscribers.set(query, []).get(query)!).push({ socket, id: message.id! });
        subscribed++;
      }
    });
  });
  let cpuMark = process.cpuUsage();
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  const send = (message: FloorMessage) => process.send!(message);
  process.on('message', async (message: FloorMessage) => {
    switch (message.type) {
      case 'floorStart': {
        templates = message.templates;
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        send({ type: 'floorReady', url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` });
        return;
      }
      case 'floorMark':
        peakRss = process.memoryUsage.rss();
        cpuMark = process.cpuUsage();
        return send({ type: 'floorMarked', rss: peakRss, subscribed });
      case 'broadcast': {
        let sent = 0;
        for (const [query, list] of subscribers) {
          const template = templates[query];
          if (template === undefined) continue; // a document whose subscribers got nothing from the gateway either
          // One serialization per (event, document); the bench's operations all have the same id.
          const text = template.replace('%ID%', String(message.zulipId));
          let id: string | undefined;
          let frame: Buffer | undefined;
          for (const subscriber of list) {
            if (subscriber.id !== id) {
              id = subscriber.id;
              frame = Buffer.from(text.replace(/^\{"id":"[^"]*"/, `{"id":${JSON.stringify(id)}`));
            }
            subscriber.socket.send(frame!, { binary: false });
            sent++;
          }
        }
        return send({ type: 'broadcasted', sent });
      }
      case 'floorReport':
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
        return send({ type: 'floorReported', cpu: process.cpuUsage(cpuMark), peakRss });
      case 'stop':
        clearInterval(sampler);
        for (const socket of wss.clients) socket.terminate();
        server.close();
        process.exit(0);
    }
  });
  send({ type: 'floorReady', url: '' });
}
