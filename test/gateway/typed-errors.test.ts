/**
 * Expected errors as typed data (docs/errors.md): a mutation that declares its expected errors
 * returns a result union of its payload and those Error types, and the emulator, answering as Zulip
 * does, produces each declared type for a real case, through the gateway, as data and never as a
 * top-level error. (So far `editMessage` and `unsubscribe` declare theirs; see docs/errors.md.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { getNamedType, isInterfaceType, isObjectType, isUnionType } from 'graphql';
import { insertMessage } from '../../src/emulator/factory.js';
import { demoUser } from '../../src/emulator/seed.js';
import { buildSchema } from '../../src/gateway/schema/index.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const schema = buildSchema();
const errorInterface = schema.getType('Error');
const ERROR = '... on Error { __typename code message }';

/** Runs one mutation field and returns its result's typed error, checking there is no top-level error. */
async function failure(h: Harness, field: string, document: string, variables: Record<string, unknown>, as: string | null): Promise<Record<string, unknown>> {
  const result = await h.gql<Record<string, Record<string, unknown>>>(document, variables, as === null ? { as: null } : { as });
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data![field]!;
}

describe('the result union of every mutation that declares its errors', () => {
  const mutations = Object.values(schema.getMutationType()!.getFields()).filter((field) => isUnionType(getNamedType(field.type)));

  it('holds the payload and at least one Error type, named <Mutation>Result', () => {
    expect(mutations.map((field) => field.name).sort()).toEqual(['editMessage', 'unsubscribe']);
    const wrong = mutations.flatMap((field) => {
      const type = getNamedType(field.type);
      const expectedName = `${field.name.charAt(0).toUpperCase()}${field.name.slice(1)}Result`;
      if (!isUnionType(type) || type.name !== expectedName) return [`${field.name}: ${String(field.type)}`];
      const members = type.getTypes();
      const errors = members.filter((m) => m.getInterfaces().includes(errorInterface as never));
      const payloads = members.filter((m) => !errors.includes(m));
      return payloads.length === 1 && errors.length >= 1 ? [] : [`${field.name}: ${members.map((m) => m.name).join(' | ')}`];
    });
    expect(wrong).toEqual([]);
  });

  it('lists only types that implement Error with message and code', () => {
    expect(isInterfaceType(errorInterface)).toBe(true);
    const implementations = schema.getPossibleTypes(errorInterface as never).map((t) => t.name).sort();
    expect(implementations).toEqual(ERROR_TYPES);
    for (const name of implementations) {
      const type = schema.getType(name);
      expect(isObjectType(type) && Object.keys(type.getFields())).toEqual(expect.arrayContaining(['message', 'code']));
    }
  });
});

const ERROR_TYPES = [
  'AuthenticationFailedError',
  'BadRequestError',
  'ChannelDoesNotExistError',
  'ConflictError',
  'MoveMessagesTimeLimitExceededError',
  'NotFoundError',
  'PermissionDeniedError',
  'UnsupportedByServerError',
];

describe('each error type, produced by the emulator for its case', () => {
  const h = createHarness({ emulatorSettings: { moveMessagesWithinStreamLimitSeconds: 3600 } });
  afterAll(() => h.close());
  const hamlet = demoUser('hamlet').email;
  const seen = new Set<string>();
  const expectType = (error: Record<string, unknown>, type: string, code: string) => {
    expect(error).toMatchObject({ __typename: type, code, message: expect.any(String) });
    seen.add(type);
  };

  it('ChannelDoesNotExistError: a channel name that names none (STREAM_DOES_NOT_EXIST), with the name', async () => {
    const error = await failure(h, 'unsubscribe', `mutation { unsubscribe(channelNames: ["no such channel"]) { ... on UnsubscribePayload { removed } ${ERROR} ... on ChannelDoesNotExistError { channelName channelId } } }`, {}, hamlet);
    expectType(error, 'ChannelDoesNotExistError', 'STREAM_DOES_NOT_EXIST');
    expect(error).toMatchObject({ channelName: 'no such channel', channelId: null });
  });

  it('MoveMessagesTimeLimitExceededError: moving a topic past the time limit, with where to retry from', async () => {
    const now = Math.floor(Date.now() / 1000);
    const channel = h.emulator.store.channelByName('design')!;
    insertMessage(h.emulator.store, { sender_id: h.userId('hamlet'), stream_id: channel.stream_id, topic: 'late move', content: 'old', timestamp: now - 7200 });
    const recent = insertMessage(h.emulator.store, { sender_id: h.userId('hamlet'), stream_id: channel.stream_id, topic: 'late move', content: 'new', timestamp: now - 60 });
    const error = await failure(
      h,
      'editMessage',
      `mutation($id: Long!) { editMessage(messageId: $id, topic: "moved", propagateMode: CHANGE_ALL) { ... on EditMessagePayload { messageId } ${ERROR} ... on MoveMessagesTimeLimitExceededError { firstMessageIdAllowedToMove } } }`,
      { id: recent.id },
      hamlet,
    );
    expectType(error, 'MoveMessagesTimeLimitExceededError', 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED');
    expect(error.firstMessageIdAllowedToMove).toBe(recent.id);
  });

  it('covered every error type a mutation declares', () => {
    const declared = new Set(
      Object.values(schema.getMutationType()!.getFields()).flatMap((field) => {
        const type = getNamedType(field.type);
        return isUnionType(type) ? type.getTypes().filter((m) => m.getInterfaces().includes(errorInterface as never)).map((m) => m.name) : [];
      }),
    );
    expect([...seen].sort()).toEqual([...declared].sort());
  });
});
