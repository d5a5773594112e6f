/**
 * Assembles the schema. Each resource file registers its types and root fields on `builder` when
 * imported; this file only imports them, one line per resource (append yours), and builds.
 */
import { GraphQLSchema, specifiedDirectives } from 'graphql';
import { builder } from '../builder.js';
import { LiveDirective } from '../live/directive.js';
// The expected errors of mutations (typed-errors.ts), before the mutations that return them.
import './errors.js';
import './server-settings.js';
import './users.js';
import './user-groups.js';
import './group-settings.js';
import './channels/index.js';
import './channels/update.js';
import './subscriptions/index.js';
import './subscriptions/membership.js';
import './subscriptions/settings.js';
import './user-topics.js';
import './drafts.js';
import './scheduled-messages.js';
import './messages/index.js';
import './reactions.js';
import './presence.js';
import './typing.js';
import './settings.js';
import './unreads.js';
import './events/index.js';
import './authentication.js';
import './sessions.js';
import './emoji.js';
import './navigation-views.js';
import './default-channels.js';
import './calls.js';
// Organization administration.
import './linkifiers.js';
import './realm-domains.js';
import './playgrounds.js';
import './saved-snippets.js';
import './alert-words.js';
import './muted-users.js';
import './user-status.js';
// Uploads, attachments, custom emoji and JWT login.
import './uploads.js';
// Accounts, custom profile fields and bots.
import './custom-profile-fields.js';
import './bots.js';
// Channel folders and channel creation.
import './channels/folders.js';
import './channels/create.js';
// Reminders and mobile push.
import './reminders.js';
import './mobile.js';
// Invitations and data exports.
// Delta sync for mobile: changes(since:) and stamp.
import './changes.js';
import './invites.js';
import './exports.js';
// Organization-wide user-setting defaults; joining and leaving several channels at once.
import './realm.js';
import './subscriptions/update.js';
import './subscriptions/user-channels.js';
// Accounts last: an Account repeats every root read registered above.
import './events/accounts.js';
import { shareRootReads, withAccountMutations } from './accounts.js';
import { toSubgraphSchema } from './federation.js';

// A pure memo of an immutable, deterministic build, not state: the types are registered on the
// one Pothos builder at import time, so every build is the same schema, and a GraphQLSchema is never
// mutated once built. Gateways share it read-only; building it per createGateway would redo the
// whole build (every type, then the sort) for an identical result.
let schema: GraphQLSchema | undefined;

/** The gateway schema, built on first use and shared by every gateway of the process. */
export function buildSchema(): GraphQLSchema {
  // `@live` on a query: plugins/live-queries.ts runs it as a live query.
  schema ??= withAccountMutations(shareRootReads(withoutEmptyMutation(builder.toSchema({ sortSchema: true, directives: [...specifiedDirectives, LiveDirective] }))));
  return schema;
}

// The same kind of memo as `schema`, for the same reasons.
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
