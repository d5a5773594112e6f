/** scripts/api-coverage.ts: docs/api-coverage.md is what the schema's `reaches` facts (gateway/facts.ts) produce. */
import { readFileSync } from 'node:fs';
import { buildSchema as buildSdl, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { COVERAGE_FILE, coverageRows, EXCLUDED, renderCoverage } from '../../scripts/api-coverage.js';
import { buildSchema } from '../../src/gateway/schema/index.js';
import { reachedOperations } from '../../src/gateway/facts.js';

const reaches = (...operations: string[]) => ({ zulip: { reaches: operations } });

function schemaWith(extensions: Record<string, unknown>): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { a: { type: GraphQLString, extensions }, b: { type: GraphQLString } } }),
  });
}

describe('coverage:api', () => {
  const schema = buildSchema();

  it('matches the committed docs/api-coverage.md (run `npm run coverage:api` after adding fields)', () => {
    expect(readFileSync(COVERAGE_FILE, 'utf8')).toBe(renderCoverage(schema));
  });

  it('reads the declarations from the built schema', () => {
    const reached = reachedOperations(schema);
    expect(reached.get('get-messages')).toEqual(expect.arrayContaining(['Query.messages', 'Query.messagesByIds']));
    expect(reached.get('send-message')).toEqual(['Mutation.sendMessage']);
    expect(reachedOperations(schemaWith(reaches('get-drafts'))).get('get-drafts')).toEqual(['Query.a']);
  });

  it('counts an operation covered only when a field declares it, and keeps exclusions apart', () => {
    const rows = coverageRows(schemaWith(reaches('get-drafts')));
    expect(rows.filter((row) => row.status === 'covered').map((row) => row.id)).toEqual(['get-drafts']);
    expect(rows.filter((row) => row.status === 'excluded').map((row) => row.id).sort()).toEqual(Object.keys(EXCLUDED).sort());
    expect(() => coverageRows(schemaWith(reaches('dev-list-users')))).toThrow(/excluded/);
  });

  it('leaves the SDL unchanged', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).not.toMatch(/zulipOperations|reaches/);
    expect(() => buildSdl(committed)).not.toThrow();
  });
});
