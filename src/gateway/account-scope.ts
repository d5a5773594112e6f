/**
 * A Pothos plugin: every resolver below an account's object runs with that account's context
 * (accounts.ts says why the context is found by response path). Registered first in builder.ts,
 * so that every other plugin's wrapper (the feature gates, the live reads) sees the account's
 * context too. Default resolvers (a property read) are left alone: they read no context.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { defaultFieldResolver, type GraphQLFieldResolver } from 'graphql';
import { scopedContext } from './accounts.js';
import type { Context } from './context.js';

const pluginName = 'accountScope';
export default pluginName;

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      accountScope: AccountScopePlugin<Types>;
    }
  }
}

export class AccountScopePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    _fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (resolver === defaultFieldResolver) return resolver;
    return (parent, args, context, info) => {
      const scopes = (context as Context).accountScopes;
      return resolver(parent, args, scopes === undefined ? context : (scopedContext(context as Context, scopes, info.path) as Types['Context']), info);
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, AccountScopePlugin);
