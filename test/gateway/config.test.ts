/**
 * Configuration: every variable read is documented in one table, `--help` and the README are
 * generated from / checked against it, and a bad environment fails at once with every problem named.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, configOrExit, helpText, loadConfig, VARIABLES, variablesMarkdown, type ExitIO } from '../../src/gateway/config/index.js';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has defaults for the demo (DEMO=1: demo mode, loopback, GraphiQL on, CORS closed)', () => {
    const config = loadConfig({ DEMO: '1' });
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      demo: true,
      production: true,
      logLevel: 'info',
      gateway: {
        upstreamDeadlineMs: 10_000,
        maxRequestBodyBytes: 2_000_000,
        corsOrigins: [],
        graphiql: true,
        subgraph: false,
        persistedOperations: { mode: 'apq', apqMaxEntries: 1000 },
        liveDirectory: { idleMs: 300_000, maxBytes: 512 * 1_048_576 },
        messageCache: { maxBytes: 64 * 1_048_576 },
        maxUpstreamCalls: 50,
        upstreamBudgetHeadroom: '10%',
        compiledExecution: true,
      },
      server: { drainMs: 10_000 },
      metrics: { enabled: true, path: '/metrics' },
      tracing: { exporter: 'none' },
      warnings: [],
    });
    expect(config.cluster).toBeUndefined();
    expect(config.gateway.userIdsBatchThreshold).toBeUndefined(); // the gateway's own default
    expect(config.metrics.port).toBeUndefined();
    expect(config.zulipUrl).toBeUndefined();
  });

  it('turns GraphiQL off by default in production outside demo mode, and on outside production', () => {
    expect(loadConfig({ ZULIP_URL: 'https://chat.example.com' }).gateway.graphiql).toBe(false);
    expect(loadConfig({ ZULIP_URL: 'https://chat.example.com', NODE_ENV: 'development' }).gateway.graphiql).toBe(true);
    expect(loadConfig({ ZULIP_URL: 'https://chat.example.com', GRAPHIQL: 'on' }).gateway.graphiql).toBe(true);
  });

  it('refuses production without ZULIP_URL, with one problem that says how to run the demo', () => {
    expect(problemsOf({})).toEqual(['ZULIP_URL is not set: set it to your Zulip server (e.g. https://chat.example.com), or run the demo organization with DEMO=1 (npm start sets it).']);
    expect(problemsOf({ NODE_ENV: 'production', DEMO: 'off' })).toHaveLength(1);
    expect(loadConfig({ NODE_ENV: 'development' }).demo).toBe(true);
    expect(loadConfig({ DEMO: '1', ZULIP_URL: 'https://chat.example.com' }).demo).toBe(false);
  });

  it('reads MESSAGE_CACHE, and its old name LIVE_CACHE for one release with a warning', () => {
    const base = { ZULIP_URL: 'https://chat.example.com' };
    expect(loadConfig({ ...base, MESSAGE_CACHE: 'off' })).toMatchObject({ gateway: { messageCache: false }, warnings: [] });
    expect(loadConfig({ ...base, MESSAGE_CACHE_MAX_BYTES: '1048576' }).gateway.messageCache).toEqual({ maxBytes: 1_048_576 });
    const old = loadConfig({ ...base, LIVE_CACHE: 'off', LIVE_CACHE_MAX_BYTES: '1048576' });
    expect(old.gateway.messageCache).toBe(false);
    expect(old.warnings).toEqual([
      'LIVE_CACHE is deprecated and will be removed in the next release: rename it MESSAGE_CACHE.',
      'LIVE_CACHE_MAX_BYTES is deprecated and will be removed in the next release: rename it MESSAGE_CACHE_MAX_BYTES.',
    ]);
    const both = loadConfig({ ...base, LIVE_CACHE: 'off', MESSAGE_CACHE: 'on' });
    expect(both.gateway.messageCache).toEqual({ maxBytes: 64 * 1_048_576 });
    expect(both.warnings).toEqual(['LIVE_CACHE is ignored: MESSAGE_CACHE, its new name, is set.']);
  });

  it('reads every kind of value', () => {
    const config = loadConfig({
      PORT: '8080', HOST: '0.0.0.0', ZULIP_URL: 'https://chat.example.com/', ZULIP_EMAIL: 'bot@example.com', ZULIP_API_KEY: 'k',
      LOG_LEVEL: 'DEBUG', CORS_ORIGINS: 'https://app.example.com, http://localhost:3000', METRICS_PORT: '9464',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'x-token=a%20b', OTEL_TRACES_SAMPLER_ARG: '0.25',
      PERSISTED_OPERATIONS: 'trusted', PERSISTED_OPERATIONS_FILE: '/etc/chatgraph/documents.json',
      REDIS_URL: 'redis://redis:6379', GATEWAY_SECRET: 'x'.repeat(32), REDIS_KEY_PREFIX: 'cg:', CLUSTER_FAILOVER_MS: '5000',
      LIVE_DIRECTORY: 'off', LIVE_DIRECTORY_MAX_BYTES: String(64 * 1_048_576), LIVE_DIRECTORY_IDLE_MS: '60000', USER_IDS_BATCH_THRESHOLD: '20',
      MAX_BODY_BYTES: '100000', UPSTREAM_DEADLINE_MS: '5000', MAX_UPSTREAM_CALLS: '120', UPSTREAM_BUDGET_HEADROOM: '25',
      COMPILED_EXECUTION: 'off',
    });
    expect(config).toMatchObject({
      port: 8080, host: '0.0.0.0', zulipUrl: 'https://chat.example.com', demo: false, logLevel: 'debug',
      metrics: { port: 9464 },
      tracing: { exporter: 'otlp', url: 'http://collector:4318/v1/traces', headers: { 'x-token': 'a b' }, sampleRatio: 0.25 },
      cluster: { url: 'redis://redis:6379', secret: 'x'.repeat(32), keyPrefix: 'cg:', failoverMs: 5000 },
      gateway: {
        defaultCredentials: { email: 'bot@example.com', apiKey: 'k' },
        corsOrigins: ['https://app.example.com', 'http://localhost:3000'],
        persistedOperations: { mode: 'trusted', file: '/etc/chatgraph/documents.json' },
        liveDirectory: false, userIdsBatchThreshold: 20,
        maxRequestBodyBytes: 100_000, upstreamDeadlineMs: 5000, maxUpstreamCalls: 120, upstreamBudgetHeadroom: 25,
        compiledExecution: false,
      },
    });
    expect(loadConfig({ DEMO: '1', LIVE_DIRECTORY_MAX_BYTES: String(64 * 1_048_576), LIVE_DIRECTORY_IDLE_MS: '60000' }).gateway.liveDirectory).toEqual({ idleMs: 60_000, maxBytes: 64 * 1_048_576 });
    expect(loadConfig({ DEMO: '1', UPSTREAM_BUDGET_HEADROOM: ' 5% ' }).gateway.upstreamBudgetHeadroom).toBe('5%');
  });

  it('names a bad ZULIP_URL and a negative timeout, all problems at once', () => {
    expect(problemsOf({ ZULIP_URL: 'notaurl', UPSTREAM_DEADLINE_MS: '-5', PORT: '70000' })).toEqual([
      'ZULIP_URL must be an http(s) URL such as https://chat.example.com, got "notaurl".',
      'PORT must be an integer from 0 to 65535, got "70000".',
      'UPSTREAM_DEADLINE_MS must be an integer from 1 to 86400000, got "-5".',
    ]);
  });

  it.each([
    [{ ZULIP_URL: 'ftp://chat.example.com' }, 'ZULIP_URL must use http or https, got "ftp://chat.example.com".'],
    [{ ZULIP_URL: 'https://chat.example.com/api/v1' }, 'ZULIP_URL must be the server\'s address without the API path: set it to "https://chat.example.com", not "https://chat.example.com/api/v1".'],
    [{ ZULIP_URL: 'https://chat.example.com/api/' }, 'ZULIP_URL must be the server\'s address without the API path: set it to "https://chat.example.com", not "https://chat.example.com/api/".'],
    [{ DEMO: '1', NODE_ENV: 'prod' }, 'NODE_ENV must be one of production, development, test, got "prod".'],
    [{ DEMO: '1', NODE_ENV: 'Production' }, 'NODE_ENV must be one of production, development, test, got "Production".'],
    [{ DEMO: '1', ZULIP_EMAIL: 'a@example.com' }, 'Set both ZULIP_EMAIL and ZULIP_API_KEY, or neither.'],
    [{ DEMO: '1', SUBGRAPH: 'true', ZULIP_EMAIL: 'a@example.com', ZULIP_API_KEY: 'k' }, 'SUBGRAPH=true refuses default credentials (ZULIP_EMAIL/ZULIP_API_KEY): a router would act as that account for every caller.'],
    [{ DEMO: '1', SUBGRAPH: 'maybe' }, 'SUBGRAPH must be on/off (or true/false, 1/0), got "maybe".'],
    [{ DEMO: '1', LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".'],
    [{ DEMO: '1', CORS_ORIGINS: 'https://a.example.com/app' }, 'CORS_ORIGINS must be an origin without path, query or fragment (e.g. https://chat.example.com), got "https://a.example.com/app".'],
    [{ DEMO: '1', CORS_ORIGINS: '*,https://a.example.com' }, 'CORS_ORIGINS: "*" must be the only entry.'],
    [{ DEMO: '1', PERSISTED_OPERATIONS: 'trusted' }, 'PERSISTED_OPERATIONS=trusted needs PERSISTED_OPERATIONS_FILE (the manifest).'],
    [{ DEMO: '1', REDIS_URL: 'redis://r:6379' }, 'REDIS_URL (cluster mode) needs GATEWAY_SECRET, the same on every instance.'],
    [{ DEMO: '1', REDIS_URL: 'http://r', GATEWAY_SECRET: 's'.repeat(40) }, 'REDIS_URL must be a redis:// or rediss:// URL (value hidden).'],
    [{ DEMO: '1', GATEWAY_SECRET: 'short' }, 'GATEWAY_SECRET must be at least 32 characters (value hidden).'],
    [{ DEMO: '1', METRICS_PATH: '/graphql' }, 'METRICS_PATH must not be /graphql, which the gateway serves itself.'],
    [{ DEMO: '1', METRICS_PORT: '4000' }, 'METRICS_PORT must differ from PORT (unset it to serve metrics on PORT).'],
    [{ DEMO: '1', MAX_BODY_BYTES: '-1' }, 'MAX_BODY_BYTES must be an integer from 1024 to 1073741824, got "-1".'],
    [{ DEMO: '1', CLUSTER_FAILOVER_MS: '50' }, 'CLUSTER_FAILOVER_MS must be an integer from 100 to 600000, got "50".'],
    [{ DEMO: '1', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "2".'],
    [{ DEMO: '1', MAX_UPSTREAM_CALLS: '0' }, 'MAX_UPSTREAM_CALLS must be an integer from 1 to 1000000, got "0".'],
    [{ DEMO: '1', UPSTREAM_BUDGET_HEADROOM: '150%' }, 'UPSTREAM_BUDGET_HEADROOM must be a number of calls (e.g. 20) or a percentage up to 100% (e.g. 10%), got "150%".'],
    [{ DEMO: '1', UPSTREAM_BUDGET_HEADROOM: 'lots' }, 'UPSTREAM_BUDGET_HEADROOM must be a number of calls (e.g. 20) or a percentage up to 100% (e.g. 10%), got "lots".'],
  ])('refuses %j', (env, message) => {
    expect(problemsOf(env)).toEqual([message]);
  });

  it('never echoes a secret', () => {
    const secret = 'hunter2-secret-value';
    const problems = problemsOf({ REDIS_URL: `mysql://u:${secret}@db`, GATEWAY_SECRET: secret, ZULIP_URL: `https://u:${secret}@chat.example.com`, ZULIP_API_KEY: secret, ZULIP_EMAIL: 'a@example.com' });
    expect(problems.join('\n')).not.toContain(secret);
    expect(problems).toHaveLength(3);
  });

  it('reads only documented variables', () => {
    const read = new Set<string>();
    const env = new Proxy({} as NodeJS.ProcessEnv, { get: (_, name) => (read.add(String(name)), undefined) });
    expect(problemsOf(env)).toHaveLength(1); // no ZULIP_URL: every variable is still read
    const documented = new Set(VARIABLES.map((v) => v.name));
    expect([...read].filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });
});

describe('defaults', () => {
  // Stated once: the table's default is the module's exported constant (variables.ts reads it), so
  // what --help says is what loadConfig and the module use. One check that they are wired so:
  it('are what --help says', () => {
    const config = loadConfig({ DEMO: '1' });
    const shown = (name: string) => VARIABLES.find((v) => v.name === name)!.default;
    expect(shown('MAX_BODY_BYTES')).toBe(String(config.gateway.maxRequestBodyBytes));
    expect(shown('DRAIN_MS')).toBe(String(config.server.drainMs));
    expect(shown('MESSAGE_CACHE_MAX_BYTES')).toBe(String(config.gateway.messageCache && config.gateway.messageCache.maxBytes));
    expect(shown('PORT')).toBe(String(config.port));
  });
});

describe('configOrExit', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    const exits: number[] = [];
    const sink: ExitIO = { out: (t) => void out.push(t), err: (t) => void err.push(t), exit: (code) => (exits.push(code), undefined as never) };
    return { sink, out, err, exits };
  };

  it('prints help with every variable and exits 0', () => {
    const { sink, out, exits } = io();
    configOrExit({}, ['--help'], sink);
    expect(exits).toEqual([0]);
    for (const v of VARIABLES) expect(out.join('')).toContain(v.name);
  });

  it('prints one problem as one line, several as a list, and exits 2', () => {
    const { sink, err, exits } = io();
    configOrExit({ ZULIP_URL: 'notaurl' }, [], sink);
    expect(exits).toEqual([2]);
    expect(err).toEqual(['chatgraph: ZULIP_URL must be an http(s) URL such as https://chat.example.com, got "notaurl". (--help lists every variable)\n']);
    const several = io();
    configOrExit({ ZULIP_URL: 'notaurl', PORT: 'x' }, [], several.sink);
    expect(several.err.join('').split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('exits non-zero at once in a real process', () => {
    const script = "import { configOrExit } from './src/gateway/config/index.ts'; configOrExit(process.env, process.argv.slice(2)); console.log('started');";
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, ZULIP_URL: 'notaurl', UPSTREAM_DEADLINE_MS: '-1' },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(2);
    expect(result.stdout).not.toContain('started');
    expect(result.stderr).toContain('UPSTREAM_DEADLINE_MS must be an integer from 1 to 86400000, got "-1".');
    const help = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script.replace('slice(2)', 'slice(1)'), '--', '--help'], { encoding: 'utf8' });
    expect(help).toBe(helpText());
  });
});

describe('docs/configuration.md table', () => {
  it('lists every variable, as generated from the table', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toContain(variablesMarkdown());
  });
});
