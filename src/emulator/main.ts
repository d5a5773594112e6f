/**
 * `npm run emulator`: the emulator alone on loopback (PORT, default 9991), with the demo organization.
 */
import { createEmulator } from './app.js';
import { DEMO_USERS } from './seed.js';

const port = Number(process.env.PORT ?? 9991);
const host = process.env.HOST ?? '127.0.0.1';
const emulator = createEmulator({ seed: 'demo' });
const server = await emulator.listen({ port, host });

console.log(`Zulip-compatible emulator listening on ${server.url} (API under ${server.url}/api/v1)`);
console.log('Demo credentials (HTTP basic: email / API key):');
for (const u of DEMO_USERS) console.log(`  ${u.email.padEnd(32)} ${u.apiKey}   (${u.fullName}, role ${u.role})`);
console.log(`Try: curl -u ${DEMO_USERS[0]!.email}:${DEMO_USERS[0]!.apiKey} ${server.url}/api/v1/users/me`);

const stop = async () => {
  await emulator.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
