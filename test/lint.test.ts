/**
 * The dependency arrows are a lint rule (eslint.config.js): these cases prove that the rule fires on
 * each kind of forbidden import, and stays quiet on an allowed one.
 */
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// no-cycle reads the files an import names from disk, and these probes exist only as text.
const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: { rules: { 'import/no-cycle': 'off' } } });

async function ruleIdsFor(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

describe('lint enforces the arrows', () => {
  // The first lint builds the type-aware program (tens of seconds on a loaded machine); each case
  // after it is a single file. Building it here keeps that one-off cost out of the cases' timeout.
  beforeAll(() => ruleIdsFor('src/gateway/warm-up.ts', 'export {};\n'), 180_000);

  it('refuses the gateway importing the emulator', async () => {
    const ids = await ruleIdsFor('src/gateway/stray.ts', "import { createEmulator } from '../emulator/app.js';\nvoid createEmulator;\n");
    expect(ids).toContain('import/no-restricted-paths');
  });

  it('refuses the REST client importing the gateway', async () => {
    const ids = await ruleIdsFor('src/zulip/stray.ts', "import { createGateway } from '../gateway/yoga.js';\nvoid createGateway;\n");
    expect(ids).toContain('import/no-restricted-paths');
  });

  it('refuses the emulator importing REST client values, and allows its types', async () => {
    const value = await ruleIdsFor('src/emulator/stray.ts', "import { ZulipConnection } from '../zulip/connection.js';\nvoid ZulipConnection;\n");
    expect(value).toContain('@typescript-eslint/no-restricted-imports');
    const type = await ruleIdsFor('src/emulator/stray.ts', "import type { User } from '../zulip/model/users.js';\nexport type T = User;\n");
    expect(type).toEqual([]);
  });

  it('lets the emulator read the feature-level table, and no other REST client value', async () => {
    const table = await ruleIdsFor('src/emulator/routes/stray.ts', "import { featureLevels } from '../../zulip/feature-levels.js';\nexport const level = featureLevels.drafts;\n");
    expect(table).toEqual([]);
    const neighbour = await ruleIdsFor('src/emulator/routes/stray.ts', "import { readOutcome } from '../../zulip/routes/feature-levels.js';\nvoid readOutcome;\n");
    expect(neighbour).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('keeps the feature-level table free of code imports (only the operation table), so the emulator loads no REST client code through it', async () => {
    const ids = await ruleIdsFor('src/zulip/feature-levels.ts', "import { ZulipConnection } from './connection.js';\nexport const featureLevels = { drafts: 87, c: ZulipConnection } as const;\n");
    expect(ids).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('refuses the event hub loading GraphQL or a transport', async () => {
    const ids = await ruleIdsFor('src/gateway/events/stray.ts', "import { createPubSub } from 'graphql-yoga';\nvoid createPubSub;\n");
    expect(ids).toContain('no-restricted-imports');
  });

  it('refuses an import cycle', async () => {
    // The fixture folder is ignored by `npm run lint` (it is a cycle on purpose); lint it here.
    const unignored = new ESLint({ cwd: process.cwd(), ignore: false });
    const [result] = await unignored.lintFiles(['test/fixtures/lint-cycle/a.ts']);
    expect(result!.messages.map((message) => message.ruleId)).toContain('import/no-cycle');
  });

  it('refuses an import cycle made of type-only imports, which import/no-cycle skips', async () => {
    const unignored = new ESLint({ cwd: process.cwd(), ignore: false });
    const [result] = await unignored.lintFiles(['test/fixtures/lint-type-cycle/a.ts']);
    const messages = result!.messages.map((message) => [message.ruleId, message.message]);
    expect(messages).toEqual([
      ['local/no-type-cycle', 'Import cycle through a type-only import: test/fixtures/lint-type-cycle/a.ts → test/fixtures/lint-type-cycle/b.ts → test/fixtures/lint-type-cycle/a.ts.'],
    ]);
  });

  it('refuses graphql-yoga below the schema (a yoga plugin belongs in plugins/)', async () => {
    for (const filePath of ['src/gateway/directory/stray.ts', 'src/gateway/loaders/stray.ts']) {
      const ids = await ruleIdsFor(filePath, "import type { Plugin } from 'graphql-yoga';\nexport type P = Plugin;\n");
      expect(ids).toContain('no-restricted-imports');
    }
  });

  it('keeps live queries below the schema, the plugins and the transports, and out of the hub', async () => {
    for (const target of ['../schema/index.js', '../plugins/live-queries.js', '../transport/ws.js']) {
      const ids = await ruleIdsFor('src/gateway/live/stray.ts', `import * as m from '${target}';\nvoid m;\n`);
      expect(ids, target).toContain('import/no-restricted-paths');
    }
    const yoga = await ruleIdsFor('src/gateway/live/stray.ts', "import type { Plugin } from 'graphql-yoga';\nexport type P = Plugin;\n");
    expect(yoga).toContain('no-restricted-imports');
    const hub = await ruleIdsFor('src/gateway/events/stray.ts', "import { eventResources } from '../live/resources.js';\nvoid eventResources;\n");
    expect(hub).toContain('import/no-restricted-paths');
    const allowed = await ruleIdsFor('src/gateway/live/stray.ts', "import { LIVE_BY_KIND } from '../events/types.js';\nvoid LIVE_BY_KIND;\n");
    expect(allowed).toEqual([]);
  });

  it('refuses cluster mode loading GraphQL or a transport', async () => {
    const ids = await ruleIdsFor('src/gateway/cluster/stray.ts', "import { GraphQLError } from 'graphql';\nvoid GraphQLError;\n");
    expect(ids).toContain('no-restricted-imports');
  });

  it('refuses a value import used only as a type', async () => {
    const ids = await ruleIdsFor('src/zulip/stray.ts', "import { ZulipConnection } from './connection.js';\nexport type C = ZulipConnection;\n");
    expect(ids).toContain('@typescript-eslint/consistent-type-imports');
  });
});
