/** scripts/schema-check.ts: breaking changes fail unless listed as intended. */
import { describe, expect, it } from 'vitest';
import { changeKey, checkSchema, parseIntended } from '../../scripts/schema-check.js';

const base = 'type Query { a: String, b: Int }';

describe('schema check', () => {
  it('passes additions and reports removals as breaking', async () => {
    const added = await checkSchema(base, 'type Query { a: String, b: Int, c: Int }', new Set());
    expect(added.breaking).toEqual([]);
    expect(added.safe.map(changeKey)).toEqual(['FIELD_ADDED Query.c']);
    const removed = await checkSchema(base, 'type Query { a: String }', new Set());
    expect(removed.breaking.map(changeKey)).toEqual(['FIELD_REMOVED Query.b']);
  });

  it('lets a listed breaking change through, and reports stale entries', async () => {
    const intended = parseIntended('# header\nFIELD_REMOVED Query.b  # replaced by c, announced in CHANGELOG\nFIELD_REMOVED Query.zzz\n');
    const result = await checkSchema(base, 'type Query { a: String }', intended);
    expect(result.breaking).toEqual([]);
    expect(result.allowed.map(changeKey)).toEqual(['FIELD_REMOVED Query.b']);
    expect(result.unused).toEqual(['FIELD_REMOVED Query.zzz']);
  });

  it('passes for the committed schema against the code', async () => {
    const { readFileSync } = await import('node:fs');
    const { printSchema } = await import('graphql');
    const { servedSchema } = await import('../../scripts/print-schema.js');
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect((await checkSchema(committed, printSchema(servedSchema()), new Set())).breaking.map(changeKey)).toEqual([]);
  });
});
