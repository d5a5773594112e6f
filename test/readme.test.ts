/**
 * The examples of README.md and then of docs/*.md (in DOCUMENTS' order) run as written against the
 * organization `npm start` serves (the embedded emulator, seed 'demo'), as its first demo user
 * (the owner, whose Authorization header `npm start` prints):
 *
 * - every ```graphql operation validates against the schema and executes without errors, in the
 *   README's order (examples that change data come after those that read it), with the variables
 *   of the ```json block right after it, if any (an operation with `@defer` over SSE, as the README
 *   says to send it, every part without errors);
 * - the graphql-ws snippet runs as written on this Node (in a child process, with only the URL
 *   replaced) and prints a message sent after it subscribed;
 * - every `curl` example without a placeholder (logging in, uploading a file) runs as written,
 *   with only the URL replaced, and answers data without errors.
 *
 * And the README's statements that a test can hold: when a subscription is open, the
 * compatibility table's emulator level, GraphiQL's default, the README's length and order.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { extendSchema, Kind, parse, validate } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../src/emulator/context.js';
import { DEMO_USERS } from '../src/emulator/seed.js';
import { loadConfig } from '../src/gateway/config/index.js';
import { buildSchema } from '../src/gateway/schema/index.js';
import { createHarness, setupHarness } from './helpers/harness.js';
import { until } from './helpers/wait.js';

/** The README first, then the docs whose examples run (in this order: later ones may change data). */
const DOCUMENTS = ['README.md', 'docs/examples.md', 'docs/errors.md', 'docs/realtime.md', 'docs/mobile-sync.md', 'docs/api.md', 'docs/configuration.md', 'docs/operations.md', 'docs/federation.md', 'docs/benchmarks.md', 'docs/development.md', 'docs/clients.md', 'docs/adding-an-operation.md', 'docs/sessions.md', 'docs/accounts.md'];
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const documents = DOCUMENTS.map(read).join('\n');

interface Example {
  source: string;
  variables: Record<string, unknown>;
}

// A ```json block right after a ```graphql block holds its variables.
const blocks: Example[] = [...documents.matchAll(/```graphql\n([\s\S]*?)```(?:\s*```json\n([\s\S]*?)```)?/g)].map((m) => ({
  source: m[1]!,
  variables: m[2] ? (JSON.parse(m[2]) as Record<string, unknown>) : {},
}));
// Operations only: the supergraph section also shows SDL for other subgraphs to copy.
const examples = blocks.filter(({ source }) =>
  parse(source).definitions.every((d) => d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION),
);

const h = createHarness();
afterAll(() => h.close());

// The schema as the gateway serves it: yoga's defer-stream plugin adds `@defer` and `@stream` when
// it starts (as graphql-js 17 defines them), so the printed SDL has neither.
const served = extendSchema(
  buildSchema(),
  parse(/* GraphQL */ `
    directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
    directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
  `),
);

describe('the documents', () => {
  it('cover every docs/*.md with examples or prose the README links to', () => {
    const written = readdirSync(new URL('../docs', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    const generated = ['docs/ARCHITECTURE.md', 'docs/api-coverage.md', 'docs/events.md', 'docs/zulip-parameters.md'];
    expect(written.filter((f) => !DOCUMENTS.includes(f) && !generated.includes(f))).toEqual([]);
    for (const doc of DOCUMENTS.slice(1)) expect(readme).toContain(`](${doc})`);
  });

  it('keep the README under 400 lines, in the order a newcomer reads it', () => {
    expect(readme.split('\n').length).toBeLessThan(400);
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Quick start', 'First steps', 'Pointing it at your Zulip', 'Deploying', 'Compatibility', 'Documentation', 'License']);
  });

  it('state the feature level the emulator serves', () => {
    expect(readme).toMatch(new RegExp(`\\| ${DEFAULT_SETTINGS.featureLevel} \\| what the emulator serves`));
  });

  it('state GraphiQL\'s default as loadConfig applies it', () => {
    const configuration = read('docs/configuration.md');
    expect(configuration).toContain('It is **on in the demo and outside production, and off in production**');
    expect(loadConfig({ ZULIP_URL: 'https://chat.example.com' }).gateway.graphiql).toBe(false);
    expect(loadConfig({ DEMO: '1' }).gateway.graphiql).toBe(true);
    expect(loadConfig({ ZULIP_URL: 'https://chat.example.com', NODE_ENV: 'development' }).gateway.graphiql).toBe(true);
  });
});

describe('README: when a subscription is open', () => {
  it('over SSE, once the headers arrived: a message sent right then is delivered', async () => {
    const fresh = setupHarness();
    const registrations = () => fresh.emulator.requests.filter((r) => r.path === '/register');
    // A credential with no event queue yet: the subscription registers one before answering.
    await fresh.ready;
    expect(registrations()).toHaveLength(0);
    const stream = await fresh.sse('subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { content } } } }');
    await until(() => stream.status !== undefined, 10_000, 'the SSE headers');
    expect(stream.status).toBe(200);
    expect(registrations().length).toBeGreaterThanOrEqual(1);
    const sent = await fresh.gql('mutation { sendMessage(channelName: "general", topic: "open", content: "right after the headers") { messageId } }');
    expect(sent.errors).toBeUndefined();
    const [first] = await stream.waitFor(1, 10_000);
    expect(JSON.stringify(first)).toContain('right after the headers');
    stream.close();
  });
});

describe('README GraphQL examples', () => {
  it('has examples, among them sending a message', () => {
    expect(examples.length).toBeGreaterThan(10);
    expect(examples.some(({ source }) => /\bsendMessage\(/.test(source))).toBe(true);
  });

  it.each(examples.map((example, i) => [i + 1, example] as const))('example %i validates against the schema', (_, { source }) => {
    const errors = validate(served, parse(source)).map((e) => e.message);
    expect(errors).toEqual([]);
  });

  // In order, on one demo organization: each example sees what the ones before it changed.
  it('every example runs against the demo organization without errors', async () => {
    for (const [i, { source, variables }] of examples.entries()) {
      const { status, errors, data } = /@defer\b/.test(source) ? await incremental(source, variables) : await h.gql(source, variables);
      expect({ example: i + 1, status, errors }).toEqual({ example: i + 1, status: 200, errors: undefined });
      expect(data).toBeTruthy();
    }
  });

  it('includes the mobile cold start, with deferred parts', () => {
    expect(examples.some(({ source }) => /query ColdStart\b/.test(source) && /@defer\b/.test(source))).toBe(true);
  });
});

/**
 * An example with `@defer`, as the README says to send it (over SSE here): the initial payload's
 * data, and the errors of every part (undefined when there are none).
 */
async function incremental(source: string, variables: Record<string, unknown>) {
  const stream = await h.sse(source, variables);
  await stream.waitDone(20_000);
  const parts = stream.results as { data?: unknown; errors?: unknown[]; incremental?: { errors?: unknown[] }[]; hasNext?: boolean }[];
  const errors = parts.flatMap((p) => [...(p.errors ?? []), ...(p.incremental ?? []).flatMap((i) => i.errors ?? [])]);
  expect(parts.length).toBeGreaterThanOrEqual(2);
  expect(parts.at(-1)!.hasNext).toBe(false);
  return { status: stream.status, data: parts[0]?.data, errors: errors.length > 0 ? errors : undefined };
}

describe('README graphql-ws snippet', () => {
  const snippet = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((js) => js.includes('createClient'));
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill());

  it('runs as written on this Node and prints the messages it receives', async () => {
    expect(snippet).toBeDefined();
    await h.ready;
    const owner = DEMO_USERS[0]!;
    // As written: the demo owner's fixed credentials, only the URL replaced.
    expect(snippet).toContain(`btoa('${owner.email}:${owner.apiKey}')`);
    const source = snippet!.replace("'ws://127.0.0.1:4000/graphql'", JSON.stringify(h.url.replace(/^http/, 'ws')));
    expect(source).not.toBe(snippet);
    // Evaluated as a module from the repository, so that its imports resolve as a user's would.
    child = spawn(process.execPath, ['--input-type=module', '--eval', source], { cwd: new URL('..', import.meta.url).pathname });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    let exited = false;
    child.on('exit', () => void (exited = true));

    await until(() => h.gateway.graphqlSubscriptions.clients > 0 || exited, 10_000, 'the snippet to subscribe');
    expect(output).toBe('');
    const sent = await h.gql('mutation { sendMessage(channelName: "general", topic: "readme", content: "snippet check") { messageId } }');
    expect(sent.errors).toBeUndefined();
    await until(() => output.includes('snippet check') || exited, 10_000, 'the snippet to print the message');
    expect(output).toContain('snippet check');
  });
});

describe('README curl examples', () => {
  // Those that run as written against `npm start` (no placeholder to fill in): each answers data
  // without errors. The URL is the harness's; everything else, the file included, is as printed.
  const commands = [...documents.matchAll(/```sh\n(curl [\s\S]*?)```/g)].map((m) => m[1]!).filter((c) => c.includes('http://127.0.0.1:4000/graphql') && !c.includes('<'));

  it('include logging in and uploading a file', () => {
    expect(commands.some((c) => c.includes('fetchApiKey'))).toBe(true);
    expect(commands.some((c) => c.includes('uploadFile'))).toBe(true);
  });

  it.each(commands.map((c, i) => [i + 1, c] as const))('curl example %i answers data without errors', async (_, command) => {
    await h.ready;
    const run = command.replace('http://127.0.0.1:4000/graphql', h.url);
    const { stdout } = await promisify(execFile)('sh', ['-c', run], { cwd: new URL('..', import.meta.url).pathname });
    const answer = JSON.parse(stdout) as { data?: Record<string, unknown>; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toBeTruthy();
    if (command.includes('uploadFile')) {
      expect(answer.data!.uploadFile).toMatchObject({ filename: 'README.md', size: Buffer.byteLength(readme) });
      const stored = h.emulator.store.uploadedFiles.get(String((answer.data!.uploadFile as { path: string }).path).replace('/user_uploads/', ''));
      expect(Buffer.from(stored!.bytes).toString('utf8')).toBe(readme);
    }
  });
});
