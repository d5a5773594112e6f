/**
 * Assembles the schema. Each resource file registers its types and root fields on `builder` when
 * imported; this file only imports them, one line per resource (append yours), and builds.
 */
import { GraphQLSchema } from 'graphql';
import { builder } from '../builder.js';
import './server-settings.js';
import './users.js';
import './user-groups.js';
import './group-settings.js';
import './channels.js';
import './subscriptions.js';
import './user-topics.js';
import './drafts.js';
import './scheduled-messages.js';
import './messages.js';
import './reactions.js';
import './presence.js';
import './typing.js';
import './settings.js';
import './events.js';
import { toSubgraphSchema } from './federation.js';

let schema: GraphQLSchema | undefined;

/** The gateway schema, built once per process (a Pothos builder builds one schema). */
export function buildSchema(): GraphQLSchema {
  schema ??= withoutEmptyMutation(builder.toSchema({ sortSchema: true }));
  return schema;
}

let subgraphSchema: GraphQLSchema | undefined;

/** The same schema as an Apollo Federation 2 subgraph: adds `_entities` and `_service` (federation.ts). */
export function buildSubgraphSchema(): GraphQLSchema {
  subgraphSchema ??= toSubgraphSchema(buildSchema());
  return subgraphSchema;
}

/**
 * GraphQL rejects an object type without fields, and `Mutation` is declared in builder.ts before
 * any resource adds a mutation; until one does, the schema has no mutation root.
 */
function withoutEmptyMutation(built: GraphQLSchema): GraphQLSchema {
  const mutation = built.getMutationType();
  if (!mutation || Object.keys(mutation.getFields()).length > 0) return built;
  const config = built.toConfig();
  return new GraphQLSchema({ ...config, mutation: undefined, types: config.types.filter((type) => type !== mutation) });
}
