/**
 * One operation over graphql-ws against a harness's gateway (the same listener as `gql()`), sent as
 * raw protocol frames so that a test can send a body no client library would build (variables
 * 10,000 levels deep). Resolves with the first `next` or `error` payload.
 */
import { basicAuth, type Harness } from './harness.js';
import { rawSocket } from './ws-client.js';
import { DEMO_USERS } from '../../src/emulator/seed.js';

export interface WsOutcome {
  type: 'next' | 'error';
  payload: unknown;
}

/**
 * Connects as the demo owner, waits for the ack, calls `afterAck` (tests reset their upstream
 * count there: the ack itself costs a queue registration) and sends `subscribe`, whose payload is
 * given as JSON text.
 */
export async function wsOperation(h: Harness, payloadJson: string, afterAck: () => void = () => undefined): Promise<WsOutcome> {
  await h.ready;
  const socket = await rawSocket(h.url.replace(/^http/, 'ws'));
  try {
    socket.send({ type: 'connection_init', payload: { authorization: basicAuth(DEMO_USERS[0]!) } });
    await socket.waitForMessage((m) => m.type === 'connection_ack');
    afterAck();
    socket.send(`{"type":"subscribe","id":"1","payload":${payloadJson}}`);
    const message = await socket.waitForMessage((m) => m.id === '1' && (m.type === 'next' || m.type === 'error'));
    return { type: message.type as WsOutcome['type'], payload: message.payload };
  } finally {
    socket.close();
  }
}
