/**
 * Every GraphQL operation in README.md and docs/*.md is cache-ready: it selects `id` on every object
 * that has one, so Apollo's InMemoryCache, urql's graphcache and Relay's store normalize it with no
 * custom key function (docs/clients.md). Checked with graphql-eslint's `require-selections` rule,
 * the one client teams lint their own documents with, against the schema the gateway serves.
 */
import { readFileSync, readdirSync } from 'node:fs';
import graphqlEslint, { parseForESLint } from '@graphql-eslint/eslint-plugin';
import { getSiblings } from '@graphql-eslint/eslint-plugin/siblings';
import { Linter } from 'eslint';
import { Kind, parse, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/gateway/schema/index.js';

const root = new URL('../../', import.meta.url);
const files = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Each ```graphql block that holds operations (not SDL for other subgraphs), with where it is. */
const documents = files.flatMap((file) =>
  [...readFileSync(new URL(file, root), 'utf8').matchAll(/```graphql\n([\s\S]*?)```/g)]
    .map((m, i) => ({ where: `${file} #${i + 1}`, source: m[1]! }))
    .filter(({ source }) => parse(source).definitions.every((d) => d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION)),
);

// The served schema: yoga's defer-stream plugin adds these at start, so the printed SDL lacks them.
const schemaSdl = `${printSchema(buildSchema())}
directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
`;

/**
 * graphql-eslint's parser with the schema given inline; the example itself is its only sibling
 * document (where the rule finds the fragments it spreads), as a client's own file would be.
 */
const parser = {
  parseForESLint(code: string, options: Record<string, unknown>) {
    const parsed = parseForESLint(code, { ...options, schemaSdl } as never);
    return { ...parsed, services: { ...parsed.services, siblingOperations: getSiblings([{ document: parse(code), location: 'example.graphql' }]) } };
  },
};

const linter = new Linter({ configType: 'flat' });
const config: Linter.Config[] = [
  {
    files: ['**/*.graphql'],
    languageOptions: { parser },
    plugins: { '@graphql-eslint': graphqlEslint as never },
    rules: { '@graphql-eslint/require-selections': ['error', { fieldName: 'id' }] },
  },
];

describe('documentation examples', () => {
  it('are found in README.md and docs/', () => {
    expect(documents.length).toBeGreaterThan(10);
  });

  it.each(documents.map((d) => [d.where, d.source] as const))('%s selects id on every object that has one', (_, source) => {
    const problems = linter.verify(source, config, 'example.graphql').map((m) => `${m.line}:${m.column} ${m.message}`);
    expect(problems).toEqual([]);
  });

  it('the rule catches an object without its id (it can fail)', () => {
    const problems = linter.verify('{ me { fullName } }', config, 'example.graphql');
    expect(problems.map((p) => p.ruleId)).toEqual(['@graphql-eslint/require-selections']);
  });
});
