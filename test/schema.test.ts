/**
 * The committed SDL (schema/schema.graphql) must match the code-first schema, so every schema
 * change shows up in review. On failure run `npm run schema:print` and commit the result.
 */
import { readFileSync } from 'node:fs';
import { assertValidSchema, type GraphQLScalarType, parseConstValue } from 'graphql';
import { describe, expect, it } from 'vitest';
import { renderSchema, SCHEMA_FILE } from '../scripts/print-schema.js';
import { buildSchema } from '../src/gateway/schema/index.js';

describe('schema', () => {
  it('is a valid GraphQL schema', () => {
    expect(() => assertValidSchema(buildSchema())).not.toThrow();
  });

  it('matches schema/schema.graphql (run `npm run schema:print` after changing the schema)', () => {
    expect(renderSchema()).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
  });

  it('describes every type and every field', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(buildSchema().getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (!type.description) undocumented.push(type.name);
      if (!('getFields' in type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (!field.description) undocumented.push(`${type.name}.${field.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});

describe('Long', () => {
  const long = buildSchema().getType('Long') as GraphQLScalarType;

  it('serializes integers as JSON numbers, including the legacy "newest" anchor', () => {
    expect(long.serialize(42)).toBe(42);
    expect(long.serialize(10_000_000_000_000_000)).toBe(10_000_000_000_000_000);
    expect(JSON.stringify({ anchor: long.serialize(10_000_000_000_000_000) })).toBe('{"anchor":10000000000000000}');
  });

  it.each([1.5, '42', null, Number.NaN, Number.POSITIVE_INFINITY])('refuses to serialize %s', (value) => {
    expect(() => long.serialize(value)).toThrow(/Long must be an integer/);
  });

  it('accepts safe integers as variables and literals', () => {
    expect(long.parseValue(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(long.parseValue(-7)).toBe(-7);
    expect(long.parseLiteral(parseConstValue('123456789012'))).toBe(123456789012);
  });

  it.each([2 ** 53, 1.5, '42', true])('rejects the variable value %s', (value) => {
    expect(() => long.parseValue(value)).toThrow(/Long must be an integer/);
  });

  it.each(['9007199254740993', '"42"', '4.2'])('rejects the literal %s', (literal) => {
    expect(() => long.parseLiteral(parseConstValue(literal))).toThrow(/Long must be an integer/);
  });
});
