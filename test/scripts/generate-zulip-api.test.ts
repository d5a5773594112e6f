/** scripts/generate-zulip-api.ts: the committed src/zulip/generated/ is what the committed facts produce. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodingOf, GENERATED_DIR, generateZulipApi, readFacts, resourceOf, tsType } from '../../scripts/generate-zulip-api.js';

describe('generate:api', () => {
  const files = generateZulipApi(readFacts());

  it('matches the committed output file by file (run `npm run generate:api` after changing the facts)', () => {
    const committed = readdirSync(GENERATED_DIR, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    expect(committed.sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(`${GENERATED_DIR}${name}`, 'utf8'), name).toBe(text);
  });

  it('keeps every generated file within 600 lines and lists every operation once', () => {
    for (const [name, text] of files) expect(text.split('\n').length, name).toBeLessThanOrEqual(600);
    const entries = [...files.values()].join('\n').match(/^ {2}\w+: \w+Operation,$/gm);
    // Every documented operation, and the two legacy settings aliases.
    expect(entries).toHaveLength(Object.keys(readFacts()).length + 2);
    expect(files.get('operations.ts')!.match(/^ {2}\.\.\.\w+,$/gm)).toHaveLength((files.size - 1) / 2);
  });

  it('takes encodings from the JSON marks, the view overrides and the value shape', () => {
    const base = { in: 'body' as const, required: false };
    expect(encodingOf('send-message', { ...base, name: 'content', json: false, schema: { type: 'string' } })).toBe('raw');
    expect(encodingOf('get-messages', { ...base, name: 'narrow', json: true, schema: { type: 'array' } })).toBe('json');
    expect(encodingOf('update-stream', { ...base, name: 'message_retention_days', json: false, schema: { oneOf: [{ type: 'string' }] } })).toBe('json');
    expect(encodingOf('create-channel', { ...base, name: 'group', json: false, schema: { oneOf: [{ type: 'integer' }, { type: 'object' }] } })).toBe('json');
    expect(encodingOf('get-message', { ...base, in: 'path', name: 'message_id', json: false, schema: { type: 'integer' } })).toBe('raw');
  });

  it('derives TypeScript types from schema facts', () => {
    expect(tsType({ type: 'string', enum: ['a', "b'c"] })).toBe("'a' | 'b\\'c'");
    expect(tsType({ type: 'array', items: { type: 'array', items: { type: 'integer' } } })).toBe('readonly (readonly number[])[]');
    expect(tsType({ type: 'object', required: ['x'], properties: { x: { type: 'integer', nullable: true }, y: { type: 'boolean' } } })).toBe(
      '{ readonly x: number | null; readonly y?: boolean }',
    );
    expect(tsType({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toBe('string | number');
  });

  it('files operations by resource and refuses an unknown path', () => {
    expect(resourceOf('/messages/{message_id}/reactions')).toBe('reactions');
    expect(resourceOf('/users/me/subscriptions')).toBe('subscriptions');
    expect(resourceOf('/messages/{message_id}')).toBe('messages');
    expect(() => resourceOf('/brand_new_thing')).toThrow(/no resource/);
  });
});
