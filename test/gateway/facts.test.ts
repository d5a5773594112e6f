/**
 * Every field that can reach upstream declares its facts (gateway/facts.ts), and what is derived
 * from them holds: the schema is walked field by field, so a new field without facts fails here.
 *
 * "Can reach upstream": a root field (Query, Mutation, Subscription), or a field whose resolver
 * takes the context (the connection and the loaders are only reachable through it).
 */
import { isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { factsOf, gateOf, reachedOperations } from '../../src/gateway/facts.js';
import { writeFences } from '../../src/gateway/plugins/directory-writes.js';
import { buildSchema } from '../../src/gateway/schema/index.js';

const schema: GraphQLSchema = buildSchema();
const ROOTS = ['Query', 'Mutation', 'Subscription'];

type Field = GraphQLField<unknown, unknown>;

function fields(): [string, string, Field][] {
  const all: [string, string, Field][] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) all.push([type.name, field.name, field]);
  }
  return all;
}

/** The resolver as the schema's author wrote it (Pothos keeps the options it was given). */
function authored(field: Field): ((...args: unknown[]) => unknown) | undefined {
  const options = field.extensions.pothosOptions as { resolve?: (...args: unknown[]) => unknown; subscribe?: (...args: unknown[]) => unknown } | undefined;
  return options?.subscribe ?? options?.resolve;
}

describe('field facts', () => {
  it('every root field declares its facts', () => {
    const missing = fields().filter(([type, , field]) => ROOTS.includes(type) && !factsOf(field)).map(([type, name]) => `${type}.${name}`);
    expect(missing).toEqual([]);
  });

  it('every field whose resolver takes the context declares what it reaches or costs', () => {
    const missing = fields()
      .filter(([type, , field]) => !ROOTS.includes(type) && (authored(field)?.length ?? 0) >= 3)
      .filter(([, , field]) => factsOf(field)?.cost === undefined && factsOf(field)?.reaches === undefined)
      .map(([type, name]) => `${type}.${name}`);
    expect(missing).toEqual([]);
  });

  it('every mutation declares the event types its write causes, or that it writes nothing a read can see', () => {
    const mutations = Object.values(schema.getMutationType()!.getFields());
    expect(mutations.length).toBeGreaterThan(90);
    expect(mutations.filter((field) => factsOf(field)?.writes === undefined).map((field) => field.name)).toEqual([]);
    for (const field of mutations) for (const type of factsOf(field)!.writes!) expect(type, field.name).toMatch(/^[a-z_]+$/);
  });

  it('every root query field declares the live resources it reads', () => {
    const queries = Object.values(schema.getQueryType()!.getFields());
    expect(queries.filter((field) => factsOf(field)?.live === undefined).map((field) => field.name)).toEqual([]);
  });

  it('only login and public fields run without credentials', () => {
    const anonymous = fields().filter(([, , field]) => factsOf(field)?.anonymous).map(([type, name]) => `${type}.${name}`);
    // The session fields check the session themselves (schema/sessions.ts).
    expect(anonymous.sort()).toEqual([
      'Mutation.addAccount',
      'Mutation.fetchApiKey',
      'Mutation.jwtFetchApiKey',
      'Mutation.removeAccount',
      'Mutation.signIn',
      'Mutation.signOut',
      'Query.serverSettings',
      'Query.session',
    ]);
  });

  it('every gate names an operation of the table, or a level', () => {
    for (const [type, name, field] of fields()) {
      const gate = factsOf(field)?.gate;
      if (gate !== undefined) expect(gateOf(gate).level, `${type}.${name}`).toBeGreaterThan(0);
    }
    expect(gateOf('create-channel').level).toBe(417);
  });

  it('derives the write fences: the writes that the directory and the message cache apply', () => {
    const { directory, messages } = writeFences(schema);
    // The gaps of issue 26: these were missing from the hand-kept list.
    expect(directory.get('createChannel')).toEqual(['stream', 'subscription']);
    expect(directory.get('updateSubscriptionProperty')).toEqual(['subscription']);
    expect(directory.get('updateSettings')).toEqual(['realm_user']);
    expect(directory.has('createDrafts')).toBe(false);
    expect(messages.get('sendMessage')).toEqual(['message']);
    expect(messages.get('addLinkifier')).toEqual(['realm_linkifiers']);
    expect(messages.has('updateUserGroup')).toBe(false);
  });

  it('keeps the facts out of the SDL', () => {
    expect(reachedOperations(schema).get('create-channel')).toEqual(['Mutation.createChannel']);
  });
});
