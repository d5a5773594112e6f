/**
 * A gateway in a process of its own, for parse-cache.test.ts: the demo emulator and the gateway on
 * ephemeral 127.0.0.1 ports, served as `npm start` serves it. It prints one JSON line with the
 * endpoint's URL, then, for each line read on stdin, one JSON line with the heap in use after a
 * full garbage collection (run it with `--expose-gc`).
 */
import { createInterface } from 'node:readline';
import { createEmulator } from '../../../src/emulator/app.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';

const emulator = createEmulator({ seed: 'demo' });
const upstream = await emulator.listen({ host: '127.0.0.1', port: 0 });
const gateway = createGateway({ zulipUrl: upstream.url, logging: false, liveDirectory: false });
const served = createGatewayServer(gateway, { drainMs: 0 });
const url = await served.listen(0, '127.0.0.1');
const heapUsed = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};
process.stdout.write(`${JSON.stringify({ url, heapUsed: heapUsed() })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'exit') break;
  process.stdout.write(`${JSON.stringify({ heapUsed: heapUsed() })}\n`);
}
await served.close();
await gateway.dispose();
await emulator.close();
