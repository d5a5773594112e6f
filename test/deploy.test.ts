/**
 * What can be checked of the deployment files on a machine without a container engine:
 *
 * - the Dockerfile's build and start steps, run as its stages run them, in empty directories: the
 *   repository's files copied to a build directory (`npm ci`, `npm run build`), then a runtime
 *   directory with package.json, the lockfile and the built dist/ only (`npm ci --omit=dev`: no
 *   development dependency), started with `npm run start:prod` against an emulator: `/health`, a
 *   query, then a SIGTERM sent to npm leaves no process behind and exits 0;
 * - the Dockerfile itself (its stages, user, health check and command), compose.yaml (its services
 *   and variables) and every manifest of deploy/kubernetes/ (validated against a JSON schema of the
 *   fields they use, and against the configuration: their variables load without a problem).
 *
 * The image is not built and nothing is run in a container here (README, "What is tested here").
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { createEmulator } from '../src/emulator/app.js';
import { DEMO_USERS } from '../src/emulator/seed.js';
import { loadConfig, VARIABLES } from '../src/gateway/config/index.js';
import { alive, processTree } from './helpers/process-tree.js';
import { until } from './helpers/wait.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCUMENTED = new Set(VARIABLES.map((v) => v.name));

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l && !l.startsWith('#'));
  const stages: { name: string; from: string; lines: string[] }[] = [];
  for (const line of lines) {
    const from = /^FROM (\S+) AS (\S+)$/i.exec(line);
    if (from) stages.push({ from: from[1]!, name: from[2]!, lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(lines.join('\n'))?.[1];

  it('builds in one stage and runs a slim Node 20 in another', () => {
    expect(nodeImage).toMatch(/^node:20-[a-z]+-slim$/);
    expect(stages.map((s) => [s.name, s.from])).toEqual([
      ['build', '${NODE_IMAGE}'],
      ['runtime', '${NODE_IMAGE}'],
    ]);
    const build = stages[0]!.lines.join('\n');
    expect(build).toContain('RUN npm ci');
    expect(build).toContain('RUN npm run build');
  });

  it('runs as a non-root user, with production dependencies only and the built files, node as the process', () => {
    const runtime = stages[1]!.lines;
    expect(runtime).toContain('USER node');
    expect(runtime.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
    // From the build stage only dist/: its node_modules (with dev dependencies) stays behind.
    expect(runtime.filter((l) => l.includes('--from='))).toEqual(['COPY --from=build /app/dist ./dist']);
    expect(runtime).toContain('ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000');
    expect(runtime).toContain('CMD ["node", "dist/main.js"]');
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/\/health/);
    expect(read('.dockerignore').split('\n')).toContain('node_modules');
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; profiles?: string[]; ports?: string[]; depends_on?: unknown; init?: boolean }>;
    configs: { nginx: { content: string } };
  };

  it('runs Redis, two gateways in cluster mode behind one port, and the emulator in the demo profile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['emulator', 'gateway-1', 'gateway-2', 'lb', 'redis']);
    for (const name of ['gateway-1', 'gateway-2']) {
      const gateway = compose.services[name]!;
      expect(gateway.init).toBe(true);
      expect(gateway.environment).toMatchObject({ REDIS_URL: 'redis://redis:6379', HOST: '0.0.0.0' });
      expect(Object.keys(gateway.environment!).filter((v) => !DOCUMENTED.has(v))).toEqual([]);
    }
    expect(compose.services.lb!.ports).toEqual(['4000:4000']);
    expect(compose.configs.nginx.content).toContain('server gateway-1:4000;');
    expect(compose.configs.nginx.content).toContain('server gateway-2:4000;');
    expect(compose.services.emulator!.profiles).toEqual(['demo']);
    expect(compose.services.redis!.profiles).toBeUndefined();
  });
});

describe('deploy/kubernetes', () => {
  const dir = join(ROOT, 'deploy/kubernetes');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  const documents = files.flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => ({ file, doc: d.toJS() as Record<string, any> })));
  const byKind = (kind: string) => documents.filter((d) => d.doc.kind === kind).map((d) => d.doc);

  // The fields these manifests use, as the Kubernetes API defines them (apps/v1, v1, policy/v1):
  // a misspelt or misplaced field fails here rather than at `kubectl apply`.
  const metadata = { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' }, labels: { type: 'object' } }, additionalProperties: false };
  const probe = {
    type: 'object',
    required: ['httpGet'],
    properties: {
      httpGet: { type: 'object', required: ['path', 'port'], properties: { path: { type: 'string' }, port: { type: ['string', 'integer'] } }, additionalProperties: false },
      periodSeconds: { type: 'integer' },
      timeoutSeconds: { type: 'integer' },
      failureThreshold: { type: 'integer' },
    },
    additionalProperties: false,
  };
  const container = {
    type: 'object',
    required: ['name', 'image', 'ports', 'livenessProbe', 'readinessProbe', 'resources'],
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      imagePullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
      ports: { type: 'array', items: { type: 'object', required: ['containerPort'], properties: { name: { type: 'string' }, containerPort: { type: 'integer' } }, additionalProperties: false } },
      envFrom: { type: 'array', items: { type: 'object', properties: { configMapRef: { type: 'object' }, secretRef: { type: 'object' } }, additionalProperties: false } },
      resources: {
        type: 'object',
        required: ['requests'],
        properties: { requests: { type: 'object', required: ['cpu', 'memory'] }, limits: { type: 'object' } },
        additionalProperties: false,
      },
      livenessProbe: probe,
      readinessProbe: probe,
      startupProbe: probe,
      securityContext: { type: 'object' },
    },
    additionalProperties: false,
  };
  const schemas: Record<string, object> = {
    Deployment: {
      type: 'object',
      required: ['apiVersion', 'kind', 'metadata', 'spec'],
      properties: {
        apiVersion: { const: 'apps/v1' },
        kind: { const: 'Deployment' },
        metadata,
        spec: {
          type: 'object',
          required: ['selector', 'template'],
          properties: {
            replicas: { type: 'integer', minimum: 2 },
            selector: { type: 'object', required: ['matchLabels'] },
            template: {
              type: 'object',
              required: ['metadata', 'spec'],
              properties: {
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['containers'],
                  properties: {
                    terminationGracePeriodSeconds: { type: 'integer' },
                    securityContext: { type: 'object', properties: { runAsNonRoot: { const: true } }, required: ['runAsNonRoot'] },
                    containers: { type: 'array', minItems: 1, items: container },
                  },
                  additionalProperties: false,
                },
              },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    Service: {
      type: 'object',
      required: ['apiVersion', 'kind', 'metadata', 'spec'],
      properties: {
        apiVersion: { const: 'v1' },
        kind: { const: 'Service' },
        metadata,
        spec: { type: 'object', required: ['selector', 'ports'], properties: { selector: { type: 'object' }, ports: { type: 'array' } }, additionalProperties: false },
      },
      additionalProperties: false,
    },
    ConfigMap: {
      type: 'object',
      required: ['apiVersion', 'kind', 'metadata', 'data'],
      properties: { apiVersion: { const: 'v1' }, kind: { const: 'ConfigMap' }, metadata, data: { type: 'object', additionalProperties: { type: 'string' } } },
      additionalProperties: false,
    },
    Secret: {
      type: 'object',
      required: ['apiVersion', 'kind', 'metadata', 'stringData'],
      properties: { apiVersion: { const: 'v1' }, kind: { const: 'Secret' }, metadata, type: { const: 'Opaque' }, stringData: { type: 'object', additionalProperties: { type: 'string' } } },
      additionalProperties: false,
    },
    PodDisruptionBudget: {
      type: 'object',
      required: ['apiVersion', 'kind', 'metadata', 'spec'],
      properties: {
        apiVersion: { const: 'policy/v1' },
        kind: { const: 'PodDisruptionBudget' },
        metadata,
        spec: { type: 'object', required: ['selector'], properties: { maxUnavailable: { type: 'integer' }, minAvailable: { type: 'integer' }, selector: { type: 'object' } }, additionalProperties: false },
      },
      additionalProperties: false,
    },
    Kustomization: {
      type: 'object',
      required: ['apiVersion', 'kind', 'resources'],
      properties: { apiVersion: { const: 'kustomize.config.k8s.io/v1beta1' }, kind: { const: 'Kustomization' }, resources: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
  };

  it('has every manifest valid against the schema of its kind', () => {
    expect(Object.keys(schemas).every((kind) => byKind(kind).length === 1)).toBe(true);
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const { file, doc } of documents) {
      const validate = ajv.compile(schemas[doc.kind as string] ?? { not: {} });
      expect({ file, errors: validate(doc) ? [] : validate.errors }).toEqual({ file, errors: [] });
    }
    expect([...byKind('Kustomization')[0]!.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('probes /health and /readiness where the gateway serves them, and wires names, labels and variables together', () => {
    const deployment = byKind('Deployment')[0]!;
    const [container] = deployment.spec.template.spec.containers;
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(byKind('Service')[0]!.spec.selector).toEqual(labels);
    expect(byKind('PodDisruptionBudget')[0]!.spec.selector.matchLabels).toEqual(labels);
    expect(container.livenessProbe.httpGet.path).toBe('/health');
    expect(container.readinessProbe.httpGet.path).toBe('/readiness');

    const env = { ...byKind('ConfigMap')[0]!.data, ...byKind('Secret')[0]!.stringData } as Record<string, string>;
    expect(Object.keys(env).filter((v) => !DOCUMENTED.has(v))).toEqual([]);
    const config = loadConfig({ ...env, GATEWAY_SECRET: 'x'.repeat(32) });
    const port = (name: string) => container.ports.find((p: { name: string }) => p.name === name)?.containerPort;
    // With METRICS_PORT the probes must go there: the GraphQL port no longer answers them.
    expect(port('metrics')).toBe(config.metrics.port);
    expect(port('graphql')).toBe(config.port);
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) expect(probe.httpGet.port).toBe('metrics');
    expect(byKind('Service')[0]!.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual(['graphql']);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.server.drainMs);
    expect(config.cluster).toBeDefined();
  });
});

describe('the Dockerfile steps in empty directories', () => {
  const work = mkdtempSync(join(tmpdir(), 'chatgraph-deploy-'));
  // Removing two installed trees (relay-compiler's binaries among them) takes tens of seconds under load.
  afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000);

  /** Runs a step as the Dockerfile's RUN would, failing the test with its output. */
  const run = (cwd: string, command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp' } });
    expect({ step: `${command} ${args.join(' ')}`, status: result.status, output: result.status === 0 ? '' : `${result.stdout}${result.stderr}`.slice(-4000) }).toEqual({
      step: `${command} ${args.join(' ')}`,
      status: 0,
      output: '',
    });
  };

  it('builds, installs production dependencies only, starts, answers, and stops on SIGTERM to npm', { timeout: 600_000 }, async () => {
    // The build stage: the repository's files (tracked or new, as `docker build` would send them
    // minus .dockerignore), `npm ci`, `npm run build`.
    const build = join(work, 'build');
    const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    for (const file of listed) {
      if (!existsSync(join(ROOT, file))) continue; // deleted in the working tree
      mkdirSync(dirname(join(build, file)), { recursive: true });
      cpSync(join(ROOT, file), join(build, file));
    }
    run(build, 'npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
    run(build, 'npm', ['run', 'build', '--silent']);

    // The runtime stage: package.json, the lockfile and dist/ only.
    const runtime = join(work, 'runtime');
    mkdirSync(runtime);
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(build, file), join(runtime, file));
    run(runtime, 'npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
    cpSync(join(build, 'dist'), join(runtime, 'dist'), { recursive: true });
    // No package the lockfile marks development-only (what tsx, vitest, eslint and their own
    // dependencies are), and the production ones all there.
    type Entry = { dev?: boolean; optional?: boolean; devOptional?: boolean; peer?: boolean };
    const packages = Object.entries((JSON.parse(read('package-lock.json')) as { packages: Record<string, Entry> }).packages).filter(([path]) => path.startsWith('node_modules/'));
    const present = (path: string) => existsSync(join(runtime, path));
    expect(packages.filter(([path, e]) => e.dev && present(path)).map(([path]) => path)).toEqual([]);
    expect(packages.filter(([path, e]) => !e.dev && !e.optional && !e.devOptional && !e.peer && !present(path)).map(([path]) => path)).toEqual([]);

    const emulator = createEmulator({ seed: 'demo' });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    const child = spawn('npm', ['run', 'start:prod', '--silent'], {
      cwd: runtime,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ZULIP_URL: zulipUrl, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await until(() => /GraphQL on (http:\S+)/.test(stderr) || child.exitCode !== null, 60_000, 'the gateway to start');
      const url = /GraphQL on (http:\S+)/.exec(stderr)?.[1];
      expect(url, stderr).toBeDefined();
      const origin = new URL(url!).origin;
      expect(await (await fetch(`${origin}/health`)).json()).toMatchObject({ status: 'ok' });
      const owner = DEMO_USERS[0]!;
      const answer = await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}` },
        body: JSON.stringify({ query: '{ me { user { fullName } } }' }),
      });
      const body = (await answer.json()) as { data?: unknown; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(body.data).toEqual({ me: { user: { fullName: owner.fullName } } });

      const tree = processTree(child.pid!);
      expect(tree.length).toBeGreaterThan(0);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await until(() => tree.every((pid) => !alive(pid)), 15_000, 'every process of the tree to exit');
      await expect(fetch(`${origin}/health`)).rejects.toThrow();
      expect(stderr).toContain('SIGTERM, shutting down');
      for (const line of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(line) as unknown).not.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await emulator.close();
    }
  });
});
