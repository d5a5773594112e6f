/**
 * The one id rule (docs/clients.md#one-id-rule): a field named `id` is the global id of a type that
 * implements `Node`, which `node(id:)` resolves (node.test.ts round-trips every such type). The
 * schema is walked here, so a new `id` that breaks the rule fails; and two objects that clients
 * would key alike (options "0" of two custom profile fields) get distinct ids.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import { getNamedType, isInterfaceType, isNonNullType, isObjectType, type GraphQLField } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { buildSchema } from '../../../src/gateway/schema/index.js';
import { createHarness } from '../../helpers/harness.js';

describe('the id rule', () => {
  const schema = buildSchema();
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));

  it('gives an `id` field only to Node types, and it is their global ID!', () => {
    const breaches: string[] = [];
    for (const type of types) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const id = type.getFields().id as GraphQLField<unknown, unknown> | undefined;
      if (id === undefined) continue;
      const node = type.name === 'Node' || type.getInterfaces().some((i) => i.name === 'Node');
      const globalId = isNonNullType(id.type) && getNamedType(id.type).name === 'ID';
      if (node && globalId) continue;
      breaches.push(`${type.name}.id: ${String(id.type)}${node ? '' : ' on a type that is not a Node'}`);
    }
    expect(breaches).toEqual([]);
  });
});

describe('cache keys', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const IAGO = { as: demoUser('iago').email };

  it('never share one between two objects: options "0" of two fields have distinct ids', async () => {
    for (const name of ['Team', 'Shift']) {
      const made = await h.gql('mutation ($n: String!, $d: JSON) { createCustomProfileField(name: $n, type: SELECT, fieldData: $d) { fieldId } }', { n: name, d: { 0: { text: `${name} A`, order: '1' } } }, IAGO);
      expect(made.errors).toBeUndefined();
    }
    const { data, errors } = await h.gql<{ customProfileFields: { options: { __typename: string; id: string; optionId: string; fieldId: number }[] }[] }>(
      '{ customProfileFields { options { __typename id optionId fieldId } } }',
      {},
      IAGO,
    );
    expect(errors).toBeUndefined();
    const options = data!.customProfileFields.flatMap((f) => f.options);
    expect(options.filter((o) => o.optionId === '0')).toHaveLength(2);
    // Relay keys its store by `id` alone, Apollo and graphcache by `__typename` and `id`: distinct either way.
    expect(new Set(options.map((o) => o.id)).size).toBe(options.length);
    for (const o of options) expect(decodeGlobalID(o.id)).toEqual({ typename: o.__typename, id: `${o.fieldId}:${o.optionId}` });
  });
});
