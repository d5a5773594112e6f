/**
 * The resource modules whose state `POST /register` assembles (events.ts adds its own). Kept apart
 * from index.ts so events.ts can read this list without importing itself back.
 */
import type { ResourceModule } from '../context.js';
import * as authentication from './authentication.js';
import * as channels from './channels/index.js';
import * as dev from './dev.js';
import * as drafts from './drafts.js';
import * as emoji from './emoji.js';
import * as alertWords from './alert-words.js';
import * as userStatus from './user-status.js';
import * as mutedUsers from './muted-users.js';
import * as messages from './messages/index.js';
import * as presence from './presence.js';
import * as reactions from './reactions.js';
import * as scheduledMessages from './scheduled-messages.js';
import * as serverSettings from './server-settings.js';
import * as settings from './settings.js';
import * as subscriptions from './subscriptions/index.js';
import * as typing from './typing.js';
import * as userGroups from './user-groups/index.js';
import * as userTopics from './user-topics.js';
import * as users from './users/index.js';
import * as navigationViews from './navigation-views.js';
import * as defaultChannels from './default-channels.js';
import * as calls from './calls.js';
// Organization administration.
import * as linkifiers from './linkifiers.js';
import * as realmDomains from './realm-domains.js';
import * as playgrounds from './playgrounds.js';
import * as savedSnippets from './saved-snippets.js';
// Uploads, attachments, custom emoji and JWT login.
import * as uploads from './uploads.js';
// Users: custom profile fields, bots.
import * as customProfileFields from './custom-profile-fields.js';
import * as bots from './bots.js';
// Messages: reminders, mobile push.
import * as reminders from './reminders.js';
import * as mobile from './mobile.js';
// Invitations and data exports.
import * as invites from './invites.js';
import * as realmExports from './exports.js';
// Organization user-settings defaults.
import * as realm from './realm.js';

export const stateModules: ResourceModule[] = [
  serverSettings,
  dev,
  messages,
  reactions,
  channels,
  subscriptions,
  userTopics,
  users,
  userGroups,
  drafts,
  scheduledMessages,
  presence,
  typing,
  settings,
  authentication,
  emoji,
  navigationViews,
  defaultChannels,
  calls,
  // Organization administration.
  linkifiers,
  realmDomains,
  playgrounds,
  savedSnippets,
  alertWords,
  mutedUsers,
  userStatus,
  // Uploads, attachments, custom emoji and JWT login.
  uploads,
  // Users: custom profile fields, bots.
  customProfileFields,
  bots,
  // Messages: reminders, mobile push.
  reminders,
  mobile,
  // Invitations and data exports.
  invites,
  realmExports,
  // Organization user-settings defaults.
  realm,
];
