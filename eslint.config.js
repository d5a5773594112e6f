// Lint: the dependency arrows of docs/ARCHITECTURE.md, no import cycles, and type-only imports
// marked as such. `npm run lint` runs it; CI fails on any finding.
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import { typeCycleRule } from './scripts/eslint-type-cycles.js';

/** A zone: files under `target` may not import files under `from`. */
const forbid = (target, from, message) => ({ target, from, message });

/**
 * The arrows. Each line reads "X may not import Y". Paths are relative to the repository root.
 *   transport → schema → loaders / directory / live / events → zulip/routes → zulip/connection
 */
const zones = [
  forbid('./src/zulip', './src/gateway', 'The REST client knows nothing of the gateway.'),
  forbid('./src/zulip', './src/emulator', 'The REST client knows nothing of the emulator.'),
  forbid('./src/zulip', './src/main.ts', 'Only the entry point wires the parts together.'),
  forbid('./src/emulator', './src/gateway', 'The emulator never imports gateway code.'),
  forbid('./src/emulator', './src/main.ts', 'Only the entry point wires the parts together.'),
  forbid('./src/gateway', './src/emulator', 'The gateway never knows which upstream it talks to (src/main.ts wires the demo).'),
  forbid('./src/gateway', './src/main.ts', 'Only the entry point wires the parts together.'),
  forbid('./src/zulip/connection.ts', './src/zulip/routes', 'The connection sits below the routes.'),
  forbid('./src/zulip/errors.ts', './src/zulip/routes', 'The error taxonomy sits below the routes.'),
  forbid('./src/gateway/events', './src/gateway/schema', 'The event hub knows nothing of the schema.'),
  forbid('./src/gateway/events', './src/gateway/transport', 'The event hub knows nothing of transports.'),
  forbid('./src/gateway/events', './src/gateway/plugins', 'The event hub knows nothing of yoga plugins.'),
  forbid('./src/gateway/schema', './src/gateway/transport', 'The schema never touches a socket.'),
  forbid('./src/gateway/loaders', './src/gateway/schema', 'Loaders sit below the schema.'),
  forbid('./src/gateway/loaders', './src/gateway/transport', 'Loaders sit below the transports.'),
  forbid('./src/gateway/directory', './src/gateway/schema', 'The live directory sits below the schema.'),
  forbid('./src/gateway/directory', './src/gateway/transport', 'The live directory sits below the transports.'),
  forbid('./src/gateway/cluster', './src/gateway/schema', 'The cluster layer sits below the schema.'),
  forbid('./src/gateway/cluster', './src/gateway/transport', 'The cluster layer sits below the transports.'),
  forbid('./src/gateway/cluster', './src/gateway/plugins', 'The cluster layer knows nothing of yoga plugins.'),
  forbid('./src/gateway/directory', './src/gateway/plugins', 'The live directory knows nothing of yoga plugins.'),
  forbid('./src/gateway/loaders', './src/gateway/plugins', 'Loaders know nothing of yoga plugins.'),
  forbid('./src/gateway/live', './src/gateway/schema', 'Live queries sit below the schema (it records what it reads through live/reads.ts).'),
  forbid('./src/gateway/live', './src/gateway/transport', 'Live queries know nothing of transports.'),
  forbid('./src/gateway/live', './src/gateway/plugins', 'Live queries know nothing of yoga plugins (plugins/live-queries.ts drives them).'),
  forbid('./src/gateway/live', './src/gateway/loaders', 'Live queries know nothing of loaders.'),
  forbid('./src/gateway/events', './src/gateway/live', 'The event hub knows nothing of live queries.'),
  forbid('./src/gateway/directory', './src/gateway/live', 'The live directory knows nothing of live queries.'),
  forbid('./src/gateway/sync', './src/gateway/schema', 'The change logs sit below the schema.'),
  forbid('./src/gateway/sync', './src/gateway/transport', 'The change logs sit below the transports.'),
  forbid('./src/gateway/sync', './src/gateway/plugins', 'The change logs know nothing of yoga plugins.'),
  forbid('./src', './test', 'Source never imports tests.'),
  forbid('./src', './bench', 'Source never imports benchmarks.'),
];

/** Packages a layer may not load at all (the hub and cluster mode are transport- and schema-free). */
const hubForbiddenPackages = ['graphql', 'graphql-yoga', 'graphql-ws', 'ws', '@pothos/core'].map((name) => ({
  name,
  message: 'The event hub and cluster mode know nothing of GraphQL or transports.',
}));

/** The layers below the schema read GraphQL documents at most: yoga plugins live in plugins/. */
const yogaForbidden = [{ name: 'graphql-yoga', message: 'Only yoga.ts, plugins/ and transport/ load yoga; a yoga plugin goes in src/gateway/plugins/.' }];

export default tseslint.config(
  { ignores: ['test/fixtures/lint-cycle/**', 'test/clients/codegen/gql/**', 'test/clients/relay/__generated__/**', 'test/fixtures/lint-type-cycle/**', 'node_modules/**', 'dist/**', 'coverage/**', 'test-results/**', '.vitest-cache/**'] },
  {
    files: ['**/*.ts', '**/*.js'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { import: importPlugin, '@typescript-eslint': tseslint.plugin, local: { rules: { 'no-type-cycle': typeCycleRule() } } },
    settings: {
      'import/resolver': { [`${import.meta.dirname}/scripts/eslint-resolver.cjs`]: {} },
      // no-cycle parses the imported files too: with the TypeScript parser.
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/extensions': ['.ts', '.js'],
    },
    rules: {
      'import/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones }],
      'import/no-cycle': ['error', { ignoreExternal: true }],
      // import/no-cycle skips `import type`; this reports the cycles that go through one.
      'local/no-type-cycle': 'error',
      'import/no-self-import': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/emulator/]', message: 'Only src/main.ts and tests load the emulator.' },
      ],
    },
  },
  {
    // The emulator may read the REST client's wire types, never its code; the values it reads are
    // the operation table and the feature-level table (pure data modules), so each fact is spelled once.
    files: ['src/emulator/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '/zulip/(?!(feature-levels|generated/operations)\\.js$)', allowTypeImports: true, message: 'The emulator imports only types from src/zulip (and its operation and feature-level tables).' },
          ],
        },
      ],
    },
  },
  {
    // The emulator loads the feature-level and operation tables as values: they stay data that imports
    // no code (the feature-level table reads operation levels from the operation table).
    files: ['src/zulip/feature-levels.ts', 'src/zulip/generated/operations.ts', 'src/zulip/generated/table/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./(generated/operations|table/[\\w-]+)\\.js$)', allowTypeImports: true, message: 'The feature-level and operation tables import only data.' }] },
      ],
    },
  },
  {
    files: ['src/gateway/events/**/*.ts', 'src/gateway/cluster/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: hubForbiddenPackages }] },
  },
  {
    files: ['src/gateway/directory/**/*.ts', 'src/gateway/loaders/**/*.ts', 'src/gateway/live/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: yogaForbidden }] },
  },
  {
    // Tests and the entry point may wire the emulator to the gateway.
    files: ['src/main.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
