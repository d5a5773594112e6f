/**
 * Federation: the gateway schema as an Apollo Federation 2 subgraph, so that a router can compose
 * it with other subgraphs whose types point at chat users, channels, messages and groups.
 *
 * - Entities: `User`, `Channel`, `Message` and `UserGroup`, each with two keys: `@key(fields: "id")`,
 *   the Relay global id (node.ts), and `@key(fields: "zulipId")`, Zulip's own `Long` id, for a
 *   subgraph that stores Zulip's ids. `_entities` loads them through the request's DataLoaders with
 *   the caller's credentials, so a router's batch of representations costs what the same plain
 *   lookups cost: one `GET /users` for any number of users, one `GET /streams` for channels, one
 *   `GET /user_groups` for groups, one `GET /messages?message_ids=` per 1000 messages (loaders/).
 * - `_service { sdl }` returns {@link printSubgraphSdl}'s SDL, committed as schema/subgraph.graphql.
 * - Each representation is checked on its own: a malformed one (not an object, no or an unknown
 *   `__typename`, neither key, a `zulipId` that is not an integer) fails its own `_entities` entry
 *   with BAD_USER_INPUT, an `id` that is no global id of that type with INVALID_GLOBAL_ID, an id the chat server does not show the caller with NOT_FOUND; the other entries
 *   still resolve, and no entry is ever answered with another id's record.
 * - `Channel.newestMessages` is defined here: a subgraph that references a channel needs a way from
 *   it to its messages, and the channel type had none.
 *
 * Why not `@pothos/plugin-federation` (tried with @pothos/plugin-directives): its `toSubGraphSchema`
 * rebuilds and re-sorts every type, so the subgraph would no longer share the plain schema's types;
 * Apollo's `printSubgraphSchema`, which it uses, drops `@oneOf` from `_service { sdl }`, so a
 * supergraph would stop publishing that input rule; and Apollo's `_entities` throws on an unknown
 * `__typename`, nulling the whole field, which needed a wrapper anyway. Deriving the subgraph from
 * the built plain schema keeps both schemas identical by construction. {@link ENTITIES} lists what
 * `asEntity` calls would, so a later move to the plugin stays local to this file and index.ts.
 * https://www.apollographql.com/docs/graphos/reference/federation/subgraph-spec
 */
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  Kind,
  isInputObjectType,
  parse,
  print,
  printSchema,
  valueFromASTUntyped,
  visit,
  type ConstDirectiveNode,
  type DefinitionNode,
} from 'graphql';
import type { Message } from '../../zulip/model/messages.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { invalidGlobalId, parseIntegerKey, readGlobalId } from '../global-ids.js';
import { memoKey } from '../loaders/index.js';
import { ChannelRef } from './channels/index.js';
import { fetchMessagePage, MessageRef } from './messages/index.js';
import { UserGroupRef } from './user-groups.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';
import { upstreamCost } from '../upstream/cost.js';

/**
 * The federation spec version the SDL links to. v2.3 has all this subgraph uses (`@key`), and every
 * Apollo Router and Hive Gateway release since early 2023 reads it.
 */
const FEDERATION_LINK = 'https://specs.apollo.dev/federation/v2.3';

/** The key fields of every entity here: the global id (`ID`), and Zulip's own id (`Long`). */
const ENTITY_KEY = 'id';
const ZULIP_KEY = 'zulipId';

// ---- Channel.newestMessages ------------------------------------------------------------------------

/** At most this many messages per channel, so a list of channels stays cheap upstream. */
export const NEWEST_MESSAGES_MAX = 100;

builder.objectField(ChannelRef, 'newestMessages', (t) =>
  t.field({
    extensions: { ...reaches('get-messages'), ...upstreamCost({ each: 1, size: { slicingArguments: ['limit'] } }) },
    type: [MessageRef],
    description:
      `The newest messages of the channel the caller can read, oldest first (at most ${NEWEST_MESSAGES_MAX}; one ` +
      'upstream request per channel). Empty when the caller cannot read its history.',
    args: {
      limit: t.arg.int({
        required: false,
        defaultValue: 10,
        description: `How many messages, 0 to ${NEWEST_MESSAGES_MAX}.`,
      }),
    },
    resolve: async (channel, args, ctx): Promise<Message[]> => {
      const limit = args.limit ?? 10;
      if (!Number.isInteger(limit) || limit < 0 || limit > NEWEST_MESSAGES_MAX) {
        throw badInput(`\`limit\` must be between 0 and ${NEWEST_MESSAGES_MAX}.`, { argument: 'limit' });
      }
      if (limit === 0) return [];
      const page = await fetchMessagePage(ctx, { last: limit, narrow: { channelId: channel.stream_id } });
      return page.edges;
    },
  }),
);

// ---- entities ------------------------------------------------------------------------------------

/** One entity type: how a representation's id becomes a record, through the request's loaders. */
interface Entity<T> {
  typename: string;
  /** Loads one record by id; the loader batches the calls of one request. */
  load(id: number, ctx: Context): Promise<T>;
  /** The id of a loaded record, checked against the representation's. */
  idOf(record: T): number;
}

function entity<T extends object>(
  ref: { name: string; $inferType: T },
  load: (id: number, ctx: Context) => Promise<T>,
  idOf: (record: T) => number,
): Entity<object> {
  return { typename: ref.name, load, idOf: idOf as (record: object) => number };
}

/** The entities chatgraph owns, all keyed by {@link ENTITY_KEY} and by {@link ZULIP_KEY}. */
export const ENTITIES: readonly Entity<object>[] = [
  entity(UserRef, (id, ctx) => ctx.loaders.users.load(id), (user) => user.user_id),
  entity(ChannelRef, (id, ctx) => ctx.loaders.channels.load(id), (channel) => channel.stream_id),
  entity(MessageRef, (id, ctx) => ctx.loaders.messages.load(id), (message) => message.id),
  entity(UserGroupRef, (id, ctx) => ctx.loaders.userGroups.load(id), (group) => group.id),
];

const entitiesByTypename: ReadonlyMap<string, (typeof ENTITIES)[number]> = new Map(ENTITIES.map((e) => [e.typename, e]));

/** A short rendering of a value taken from a representation, for error messages. */
function preview(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * Which entity type each record resolved in a request is, for `_Entity`'s type resolution: wire
 * records carry no `__typename`, and adding one would alter objects the loaders cache.
 */
const entityTypenames = memoKey<WeakMap<object, string>>('federation entity typenames');

function typenamesOf(ctx: Context): WeakMap<object, string> {
  return ctx.loaders.memo.value(entityTypenames, () => new WeakMap());
}

/** Resolves one representation, or rejects with the error of that entry alone. */
async function resolveRepresentation(representation: unknown, ctx: Context): Promise<object> {
  if (representation === null || typeof representation !== 'object' || Array.isArray(representation)) {
    throw badInput(
      `An entity representation must be an object with __typename and ${ENTITY_KEY} or ${ZULIP_KEY}; got ${preview(representation)}.`,
    );
  }
  const { __typename: typename, [ENTITY_KEY]: globalId, [ZULIP_KEY]: zulipId } = representation as Record<string, unknown>;
  const known = typeof typename === 'string' ? entitiesByTypename.get(typename) : undefined;
  if (!known) {
    throw badInput(
      `${preview(typename)} is not an entity type of this subgraph; its entities are ${[...entitiesByTypename.keys()].join(', ')}.`,
    );
  }
  const id = representationId(known.typename, globalId, zulipId);
  const record = await known.load(id, ctx);
  // The loaders align results with keys; this check keeps the promise that an entry is never
  // answered with another id's record even if that ever broke.
  if (known.idOf(record) !== id) throw new Error(`The ${known.typename} loader answered ${id} with another record.`);
  typenamesOf(ctx).set(record, known.typename);
  return record;
}

/** The Zulip id a representation names, by its global id or by its `zulipId`. */
function representationId(typename: string, globalId: unknown, zulipId: unknown): number {
  if (typeof globalId === 'string') {
    const decoded = readGlobalId(globalId);
    if (decoded.typename !== typename) throw invalidGlobalId(globalId, `it is not the global id of a ${typename}`);
    return parseIntegerKey(typename, decoded.id);
  }
  if (globalId === undefined && typeof zulipId === 'number' && Number.isSafeInteger(zulipId)) return zulipId;
  throw badInput(
    `A ${typename} representation needs "${ENTITY_KEY}" (its global id) or "${ZULIP_KEY}" (an integer, Long); ` +
      `got ${preview(globalId ?? zulipId)}.`,
  );
}

// ---- the subgraph schema -------------------------------------------------------------------------

/** `_Any`: a representation as the router sends it; `_entities` validates each one. */
const AnyScalar = new GraphQLScalarType({
  name: '_Any',
  description: 'An entity representation: `__typename` and the key fields, as a federation router sends them.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
});

const ServiceType = new GraphQLObjectType({
  name: '_Service',
  description: 'What a federation router or composition tool reads from this subgraph.',
  fields: { sdl: { type: GraphQLString, description: 'The subgraph SDL, with its federation directives.' } },
});

/**
 * The subgraph schema: the plain schema's types, unchanged and shared, under a `Query` that also
 * has `_entities` and `_service`. The plain schema itself is not modified.
 */
export function toSubgraphSchema(plain: GraphQLSchema): GraphQLSchema {
  const sdl = printSubgraphSdl(plain);
  const entityTypes = ENTITIES.map(({ typename }) => {
    const type = plain.getType(typename);
    if (!(type instanceof GraphQLObjectType) || !type.getFields()[ENTITY_KEY] || !type.getFields()[ZULIP_KEY]) {
      throw new Error(`federation: entity ${typename} must be an object type with "${ENTITY_KEY}" and "${ZULIP_KEY}" fields.`);
    }
    return type;
  });
  const EntityUnion = new GraphQLUnionType({
    name: '_Entity',
    description: 'Every type another subgraph can reference by key.',
    types: entityTypes,
    resolveType: (record: object, ctx: Context) => typenamesOf(ctx).get(record),
  });

  const query = plain.getQueryType()!;
  const queryConfig = query.toConfig();
  const subgraphQuery = new GraphQLObjectType({
    ...queryConfig,
    fields: {
      ...queryConfig.fields,
      _entities: {
        type: new GraphQLNonNull(new GraphQLList(EntityUnion)),
        description:
          'Entities by representation, for a federation router: one entry per representation, in order, loaded ' +
          'with the caller\u2019s credentials and batched per type; null with an error for a malformed or unknown one.',
        // One batch per entity type (users, channels, messages, groups); one item per representation.
        extensions: upstreamCost({ each: ENTITIES.length, size: { slicingArguments: ['representations'] } }),
        args: {
          representations: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AnyScalar))),
            description: 'The representations, `{ __typename, id }` (global id) or `{ __typename, zulipId }` each.',
          },
        },
        resolve: (_root, args: { representations: unknown[] }, ctx: Context) =>
          args.representations.map((representation) => resolveRepresentation(representation, ctx)),
      },
      _service: {
        type: new GraphQLNonNull(ServiceType),
        description: 'This subgraph\u2019s SDL, for a federation router or composition tool; needs no credentials.',
        resolve: () => ({ sdl }),
      },
    },
  });

  const config = plain.toConfig();
  return new GraphQLSchema({
    ...config,
    query: subgraphQuery,
    types: [...config.types.filter((type) => type !== query), subgraphQuery],
  });
}

function name(value: string) {
  return { kind: Kind.NAME, value } as const;
}

function stringValue(value: string) {
  return { kind: Kind.STRING, value } as const;
}

function keyDirective(fields: string): ConstDirectiveNode {
  return { kind: Kind.DIRECTIVE, name: name('key'), arguments: [{ kind: Kind.ARGUMENT, name: name('fields'), value: stringValue(fields) }] };
}

const KEY_DIRECTIVES: readonly ConstDirectiveNode[] = [keyDirective(ENTITY_KEY), keyDirective(ZULIP_KEY)];

/** `extend schema @link(url: FEDERATION_LINK, import: ["@key"])`: marks a Federation 2 subgraph. */
const LINK_EXTENSION: DefinitionNode = {
  kind: Kind.SCHEMA_EXTENSION,
  directives: [
    {
      kind: Kind.DIRECTIVE,
      name: name('link'),
      arguments: [
        { kind: Kind.ARGUMENT, name: name('url'), value: stringValue(FEDERATION_LINK) },
        { kind: Kind.ARGUMENT, name: name('import'), value: { kind: Kind.LIST, values: [stringValue('@key')] } },
      ],
    },
  ],
};

/**
 * `@oneOf` is built into graphql-js (so `printSchema` omits its definition) but not into Apollo's
 * federation tooling, which rejects an undefined directive; with the definition both it and
 * @theguild/federation-composition accept the SDL.
 */
const ONE_OF_DEFINITION = parse('directive @oneOf on INPUT_OBJECT').definitions[0]!;

/**
 * The SDL a router composes: the plain schema's SDL with the `@key`s on each entity and the federation
 * link, without the `_entities`/`_service` plumbing (routers add that themselves).
 */
export function printSubgraphSdl(plain: GraphQLSchema): string {
  const document = visit(parse(printSchema(plain)), {
    ObjectTypeDefinition: (node) =>
      entitiesByTypename.has(node.name.value) ? { ...node, directives: [...(node.directives ?? []), ...KEY_DIRECTIVES] } : undefined,
  });
  const usesOneOf = Object.values(plain.getTypeMap()).some((type) => isInputObjectType(type) && type.isOneOf);
  return print({
    ...document,
    definitions: [LINK_EXTENSION, ...(usesOneOf ? [ONE_OF_DEFINITION] : []), ...document.definitions],
  });
}
