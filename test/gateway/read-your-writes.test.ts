/**
 * Read-your-writes, for the writes derived from the fields' facts (`writes`, gateway/facts.ts):
 * each mutation that changes something the live directory or the message cache holds is run
 * through the gateway with the caller's directory warm, and the same credential's next read must
 * show it. Each read is one the directory or the message cache answers when nothing fences it, so
 * every case fails without the fence (run with the plugin's fences off, each case but
 * createUserGroup fails; see its case). The credential's event queue is held while this happens
 * (its answers wait until the read is done), so the read cannot be saved by the write's event
 * arriving first: only the fence derived from the mutation's `writes` makes it go past the
 * directory and the cache. A read of the unread counts (`waits`) cannot go past the directory (only
 * it counts them): it waits for the write's event, so the queue is let go once the read waits.
 *
 * Every mutation the derivation fences must have a case here, or be listed in NOT_COVERED with the
 * reason: a new fenced mutation fails this file until it has one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/app.js';
import { demoUser } from '../../src/emulator/seed.js';
import { writeFences } from '../../src/gateway/plugins/directory-writes.js';
import { buildSchema } from '../../src/gateway/schema/index.js';
import { createGateway } from '../../src/gateway/yoga.js';
import { basicAuth } from '../helpers/harness.js';
import { heldEventPolls, NOT_COVERED, readYourWritesCases } from '../helpers/read-your-writes.js';
import { until } from '../helpers/wait.js';

const emulator = createEmulator({ seed: 'demo', settings: { featureLevel: 440 } });
const polls = heldEventPolls(emulator);
const gateway = createGateway({ logging: false, liveDirectory: true, messageCache: true, zulipUrl: 'http://zulip.localhost', fetch: polls.fetch });

const iago = demoUser('iago');
async function request<T = Record<string, any>>(query: string): Promise<{ data?: T; errors?: { extensions?: Record<string, unknown> }[] }> {
  const response = await gateway.fetch('http://gateway.localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(iago) },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: T; errors?: { extensions?: Record<string, unknown> }[] };
}
async function gql<T = Record<string, any>>(query: string): Promise<T> {
  const body = await request<T>(query);
  expect(body.errors, query).toBeUndefined();
  return body.data!;
}

const CASES = readYourWritesCases(emulator);
const idOf = (login: string) => emulator.store.userByEmail(demoUser(login).email)!.user_id;

beforeAll(async () => {
  await gql(`{ user(id: ${idOf('hamlet')}) { fullName } }`);
  const directories = gateway.directories!;
  await until(() => directories.stats().readyDirectories === 1, 5000, 'the directory to load');
});
afterAll(async () => {
  polls.release();
  await gateway.dispose();
  await emulator.close();
});

describe('read-your-writes of every fenced mutation', () => {
  it('every mutation the facts fence has a case, or a reason', () => {
    const { directory, messages } = writeFences(buildSchema());
    const fenced = [...new Set([...directory.keys(), ...messages.keys()])].sort();
    expect(fenced.filter((name) => !(name in CASES) && !(name in NOT_COVERED))).toEqual([]);
    expect(Object.keys(CASES).filter((name) => !fenced.includes(name))).toEqual([]);
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: the same credential's next read shows it, with the write's event held`, async () => {
      if (typeof c.warm === 'string') await gql(c.warm);
      else await c.warm?.();
      const read = typeof c.read === 'string' ? c.read : c.read();
      if (c.before) c.before(await request(read));
      else await gql(read);
      polls.hold();
      try {
        await gql(c.mutation());
        if (!c.waits) c.shows(await gql(read));
        else {
          let done = false;
          const reading = gql(read).finally(() => (done = true));
          // Unfenced, the read answers from the directory at once (the old counts); fenced, it waits.
          await until(() => done || gateway.directories!.stats().waitingReads > 0, 5000, 'the read to answer or wait');
          polls.release();
          c.shows(await reading);
        }
      } finally {
        polls.release();
      }
      await until(() => gateway.directories!.stats().fences === 0, 5000, 'the fence to lift');
    });
  }
});
