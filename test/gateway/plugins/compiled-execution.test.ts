/**
 * Compiled execution (plugins/compiled-execution.ts) answers as graphql's interpreter does: the
 * gateway as built by default and one built with `compiledExecution: false`, on the same emulator,
 * give the same data and errors (locations and paths included) for the README dashboard, a lookup
 * that fails, a document of several operations run one by one by name, and a mutation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DASHBOARD_QUERY } from '../../../src/gateway/graphiql.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';

const owner = DEMO_USERS[0]!;

describe('compiled execution', () => {
  const h = createHarness();
  const interpreted = createGateway({ zulipUrl: h.zulipUrl, fetch: (input, init) => h.emulator.fetch(new Request(input, init)), logging: false, compiledExecution: false });
  afterAll(async () => {
    await interpreted.dispose();
    await h.close();
  });

  /** The same request to both gateways: their data and errors (what each cost upstream may differ). */
  const both = async (body: Record<string, unknown>) => {
    const answers = await Promise.all(
      [h.gateway, interpreted].map(async (gateway) => {
        const response = await gateway.fetch('http://gateway.localhost/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: basicAuth(owner) },
          body: JSON.stringify(body),
        });
        const { data, errors } = (await response.json()) as { data?: unknown; errors?: unknown[] };
        return { status: response.status, data, errors };
      }),
    );
    return { compiled: answers[0]!, interpreted: answers[1]! };
  };

  it('answers the README dashboard as the interpreter does', async () => {
    for (let i = 0; i < 2; i++) {
      const { compiled, interpreted: expected } = await both({ query: DASHBOARD_QUERY });
      expect(compiled.errors).toBeUndefined();
      expect(compiled).toEqual(expected);
    }
  });

  it('reports a failing field with the same message, code, path and location', async () => {
    const { compiled, interpreted: expected } = await both({ query: '{ serverSettings { realmName }\n  nobody: user(id: 999999) { fullName } }' });
    expect(compiled.errors).toHaveLength(1);
    expect(compiled.errors![0]).toMatchObject({ path: ['nobody'], locations: [{ line: 2, column: 3 }] });
    expect(compiled).toEqual(expected);
  });

  it('runs each operation of a document by its name', async () => {
    const query = 'query Settings { serverSettings { realmName } } query Me { me { user { fullName } } }';
    for (const operationName of ['Settings', 'Me', 'Settings', 'Me']) {
      const { compiled, interpreted: expected } = await both({ query, operationName });
      expect(compiled.errors).toBeUndefined();
      expect(Object.keys(compiled.data as object)).toEqual([operationName === 'Settings' ? 'serverSettings' : 'me']);
      expect(compiled).toEqual(expected);
    }
  });

  it('runs a mutation as the interpreter does', async () => {
    const { compiled, interpreted: expected } = await both({ query: 'mutation { updateSettings(input: { twentyFourHourTime: true }) { settings { twentyFourHourTime } } }' });
    expect(compiled.errors).toBeUndefined();
    expect(compiled).toEqual(expected);
  });
});
