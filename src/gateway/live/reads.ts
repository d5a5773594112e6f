/**
 * What a live query read, recorded as it executes: a Pothos plugin that wraps, at build time, the
 * resolvers of the root `Query` fields and of the entity types of live/resources.ts. Each wrapped
 * resolver tells the execution's recorder (`Context.liveReads`, set only while a live query runs:
 * plugins/live-queries.ts) the resource it touches; any other execution pays one property read.
 *
 * The recorder lives on the context rather than in the live-query store's own collector because
 * the store's collector cannot see the context, and resources must be scoped by credential.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { ENTITY_IDS, rootFieldResources } from './resources.js';

/** Told each resource a live query's execution reads (scoped by the caller). */
export type LiveReads = (resource: string) => void;

interface WithLiveReads {
  liveReads?: LiveReads;
}

const pluginName = 'liveReads';
export default pluginName;

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      liveReads: LiveReadsPlugin<Types>;
    }
  }
}

export class LiveReadsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (fieldConfig.kind === 'Query') {
      const field = fieldConfig.name;
      return (parent, args, context, info) => {
        const record = (context as WithLiveReads).liveReads;
        if (record) for (const name of rootFieldResources(field, args as Record<string, unknown>)) record(name);
        return resolver(parent, args, context, info);
      };
    }
    const entity = fieldConfig.kind === 'Object' ? ENTITY_IDS[fieldConfig.parentType] : undefined;
    if (!entity) return resolver;
    return (parent, args, context, info) => {
      const record = (context as WithLiveReads).liveReads;
      if (record && parent !== null && typeof parent === 'object') {
        const id = entity.id(parent as Record<string, unknown>);
        if (typeof id === 'number') record(`${entity.resource}:${id}`);
      }
      return resolver(parent, args, context, info);
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, LiveReadsPlugin);
