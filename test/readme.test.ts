/**
 * Every ```graphql operation in README.md must parse and validate against the schema, so the docs
 * cannot drift from the code.
 */
import { readFileSync } from 'node:fs';
import { Kind, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../src/gateway/schema/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);
// Operations only: the supergraph section also shows SDL for other subgraphs to copy.
const examples = blocks.filter((source) =>
  parse(source).definitions.every((d) => d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION),
);

describe('README GraphQL examples', () => {
  it('has examples', () => {
    expect(examples.length).toBeGreaterThan(10);
  });

  it.each(examples.map((source, i) => [i + 1, source] as const))('example %i validates against the schema', (_, source) => {
    const errors = validate(buildSchema(), parse(source)).map((e) => e.message);
    expect(errors).toEqual([]);
  });
});
