/**
 * The facts of a field, declared once, on the field itself, as its `zulip` option:
 *
 *   createChannel: t.field({ zulip: { reaches: ['create-channel'], gate: 'create-channel', writes: ['stream', 'subscription'] }, ... })
 *   users: t.field({ zulip: { reaches: ['get-users'], cost: { each: 1, size: { directory: 'users' } }, live: ['Users'] }, ... })
 *
 * - `reaches`: the Zulip operations whose function the field offers (ids as at https://zulip.com/api/<id>):
 *   `npm run coverage:api` writes docs/api-coverage.md from them;
 * - `cost`: what it costs upstream (upstream/cost.ts), read by the budget estimate (upstream/estimate.ts);
 * - `gate`: the feature level it needs, as the operation whose own level it is (the operation table,
 *   src/zulip/generated/) or a named level: a server below it refuses the field with
 *   UNSUPPORTED_BY_SERVER before its resolver runs;
 * - `writes` (mutations): the Zulip event types its write causes, `[]` when it changes nothing a read
 *   can see. The live directory and the message cache are fenced by those of the types they apply
 *   (plugins/directory-writes.ts), so a write is seen by the writer's next read;
 * - `live` (root query fields): the resources its answer depends on besides the entities it resolves
 *   (live/resources.ts), or a function of its arguments: an event that changes one re-runs a `@live`
 *   query that selected the field. `[]`: only events the resource table does not model change it
 *   (those re-run every live query);
 * - `anonymous`: the field may run without credentials (plugins/credentials.ts refuses any other
 *   field of an anonymous operation before any upstream call).
 *
 * An object type declares, as its own `zulip.entity` option, the resource each of its records is
 * (`User:<id>`): any of its fields resolved by a live query records it.
 *
 * The plugin keeps the facts on the built field's `extensions.zulip` (invisible in the SDL), where
 * every consumer reads them, and wraps the resolvers that the gates and live queries need.
 * test/gateway/facts.test.ts fails when a field that can reach upstream declares none.
 */
import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type InputShapeFromFields,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import { isObjectType, type GraphQLField, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { zulipOperations, type ZulipOperationId } from '../zulip/generated/operations.js';
import type { ZulipOperation } from '../zulip/operation.js';
import { requireFeatureLevel, type FeatureLevelSource } from './upstream/feature-level.js';
import type { LiveResource } from './live/resources.js';
import type { UpstreamCost } from './upstream/cost.js';

/** A named feature level that belongs to no single operation. */
export interface FeatureGate {
  level: number;
  /** What needs it, for the refusal's message ("Reading a user's status"). */
  what: string;
}

export interface FieldFacts<Args = Record<string, unknown>> {
  /** The Zulip operations whose function the field offers (its own calls, not the loaders it shares). */
  reaches?: readonly [ZulipOperationId, ...ZulipOperationId[]];
  /** What it costs upstream; without it, upstream/cost.ts's default rule. */
  cost?: UpstreamCost;
  /** The feature level the field needs: the operation whose level it is, or a named level. */
  gate?: ZulipOperationId | FeatureGate;
  /** The Zulip event types its write causes (mutations); `[]`: it changes nothing a read can see. */
  writes?: readonly string[];
  /** The resources its answer depends on (root query fields), besides the entities it resolves. */
  live?: readonly LiveResource[] | ((args: Args) => readonly LiveResource[]);
  /** It may run without credentials. */
  anonymous?: true;
}

/** An object type's records as live resources: `User:<id>` for a user. */
export interface EntityFacts<Shape> {
  entity: { resource: 'User' | 'Channel' | 'Message' | 'UserGroup'; id: (record: Shape) => unknown };
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      zulipFacts: ZulipFactsPlugin<Types>;
    }
    export interface FieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      ParentShape = unknown,
      Type extends TypeParam<Types> = TypeParam<Types>,
      Nullable extends FieldNullability<Type> = FieldNullability<Type>,
      Args extends InputFieldMap = InputFieldMap,
      ResolveShape = unknown,
      ResolveReturnShape = unknown,
    > {
      /** The field's facts: see gateway/facts.ts. */
      zulip?: FieldFacts<InputShapeFromFields<Args>>;
    }
    export interface ObjectTypeOptions<Types extends SchemaTypes = SchemaTypes, Shape = unknown> {
      /** The live resource each record of the type is: see gateway/facts.ts. */
      zulip?: EntityFacts<Shape>;
    }
  }
}

/** The field's declared facts, as the built schema carries them. */
export function factsOf(field: GraphQLField<unknown, unknown>): FieldFacts | undefined {
  return field.extensions.zulip as FieldFacts | undefined;
}

const OPERATIONS_BY_ID: ReadonlyMap<string, ZulipOperation> = new Map(
  Object.values(zulipOperations as Readonly<Record<string, ZulipOperation>>).map((operation) => [operation.id, operation]),
);

/** An operation of the table by its id. */
export function operationById(id: ZulipOperationId): ZulipOperation {
  const operation = OPERATIONS_BY_ID.get(id);
  if (!operation) throw new Error(`No Zulip operation ${id}`);
  return operation;
}

/** The level and the message of a gate. */
export function gateOf(gate: ZulipOperationId | FeatureGate): FeatureGate {
  if (typeof gate !== 'string') return gate;
  return { level: operationById(gate).featureLevel, what: `The ${gate} operation (https://zulip.com/api/${gate})` };
}

/** Throws UNSUPPORTED_BY_SERVER unless the server has the operation (its own feature level, from the table). */
export function requireOperation(source: FeatureLevelSource, operation: ZulipOperation, what = `The ${operation.id} operation`): Promise<void> {
  return requireFeatureLevel(source, operation.featureLevel, what);
}

/** Every declared operation with the fields (`Type.field`) that provide it, fields in schema order. */
export function reachedOperations(schema: GraphQLSchema): Map<ZulipOperationId, string[]> {
  const reached = new Map<ZulipOperationId, string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      for (const operation of factsOf(field)?.reaches ?? []) reached.set(operation, [...(reached.get(operation) ?? []), `${type.name}.${field.name}`]);
    }
  }
  return reached;
}

/** Told each resource a live query's execution reads (scoped by the caller). */
export type LiveReads = (resource: string) => void;

interface WithLiveReads {
  liveReads?: LiveReads;
}

const pluginName = 'zulipFacts';
export default pluginName;

/**
 * Keeps each field's facts on its built `extensions.zulip`, and wraps resolvers: a gated field
 * checks the server's feature level first; while a live query runs (`Context.liveReads`, set by
 * plugins/live-queries.ts), a root query field records its `live` resources and a field of an
 * entity type records its record. Any other execution pays one property read.
 */
export class ZulipFactsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const facts = (fieldConfig.pothosOptions as { zulip?: FieldFacts }).zulip;
    if (!facts) return fieldConfig;
    if (facts.gate !== undefined) gateOf(facts.gate); // an unknown operation fails the build
    return { ...fieldConfig, extensions: { ...fieldConfig.extensions, zulip: facts } };
  }

  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const facts = (fieldConfig.pothosOptions as { zulip?: FieldFacts }).zulip;
    let wrapped = resolver;
    if (facts?.gate !== undefined) {
      const { level, what } = gateOf(facts.gate);
      const inner = wrapped;
      if (level > 0) {
        wrapped = async (parent, args, context, info) => {
          await requireFeatureLevel(context as FeatureLevelSource, level, what);
          return inner(parent, args, context, info);
        };
      }
    }
    if (fieldConfig.kind === 'Query') {
      const live = facts?.live;
      if (!live || (typeof live !== 'function' && live.length === 0)) return wrapped;
      const inner = wrapped;
      return (parent, args, context, info) => {
        const record = (context as WithLiveReads).liveReads;
        if (record) for (const name of typeof live === 'function' ? live(args as Record<string, unknown>) : live) record(name);
        return inner(parent, args, context, info);
      };
    }
    if (fieldConfig.kind !== 'Object') return wrapped;
    const typeOptions = this.buildCache.getTypeConfig(fieldConfig.parentType).pothosOptions as { zulip?: EntityFacts<Record<string, unknown>> };
    const entity = typeOptions.zulip?.entity;
    if (!entity) return wrapped;
    const inner = wrapped;
    return (parent, args, context, info) => {
      const record = (context as WithLiveReads).liveReads;
      if (record && parent !== null && typeof parent === 'object') {
        const id = entity.id(parent as Record<string, unknown>);
        if (typeof id === 'number') record(`${entity.resource}:${id}`);
      }
      return inner(parent, args, context, info);
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, ZulipFactsPlugin);
