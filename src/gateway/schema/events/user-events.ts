/**
 * Events about people and the caller's own data: presence, status, users, user groups, drafts,
 * scheduled messages, settings, alert words and muted users.
 */
import { builder } from '../../builder.js';
import { userLookupCost } from '../../upstream/cost.js';
import { DraftRef } from '../drafts.js';
import { PresenceStatusEnum } from '../presence.js';
import { ScheduledMessageRef } from '../scheduled-messages.js';
import { UserGroupRef } from '../user-groups.js';
import { UserRef } from '../users.js';
import { EventOpEnum, otherType } from './kinds.js';
import { bool, ints, loadUser, num, objects, record, str, type Other } from './payloads.js';

export const PresenceEventRef = otherType('PresenceEvent', 'A user came online or changed activity (kind PRESENCE).');
builder.objectFields(PresenceEventRef, (t) => {
  const latest = (p: Other) =>
    Object.values(record(p.event.wire.presence))
      .map(record)
      .sort((a, b) => (num(b, 'timestamp') ?? 0) - (num(a, 'timestamp') ?? 0))[0] ?? {};
  return {
    userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(p.event.wire, 'user_id') }),
    user: t.field({ zulip: { cost: userLookupCost }, type: UserRef, nullable: true, description: 'The user.', resolve: (p, _a, ctx) => loadUser(ctx, num(p.event.wire, 'user_id')) }),
    status: t.field({
      type: PresenceStatusEnum,
      nullable: true,
      description: 'What the user\u2019s client reported.',
      resolve: (p) => {
        const status = str(latest(p), 'status');
        return status === 'active' || status === 'idle' ? status : null;
      },
    }),
    timestamp: t.field({ type: 'Long', nullable: true, description: 'When the status was reported (UNIX seconds).', resolve: (p) => num(latest(p), 'timestamp') }),
    serverTimestamp: t.float({ nullable: true, description: 'The server\u2019s time when it sent the event.', resolve: (p) => num(p.event.wire, 'server_timestamp') }),
  };
});

export const UserStatusEventRef = otherType('UserStatusEvent', 'A user changed their status (kind USER_STATUS); only changed fields are set.');
builder.objectFields(UserStatusEventRef, (t) => ({
  userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(p.event.wire, 'user_id') }),
  user: t.field({ zulip: { cost: userLookupCost }, type: UserRef, nullable: true, description: 'The user.', resolve: (p, _a, ctx) => loadUser(ctx, num(p.event.wire, 'user_id')) }),
  statusText: t.string({ nullable: true, description: 'The status text.', resolve: (p) => str(p.event.wire, 'status_text') }),
  emojiName: t.string({ nullable: true, description: 'The status emoji\u2019s name.', resolve: (p) => str(p.event.wire, 'emoji_name') }),
  emojiCode: t.string({ nullable: true, description: 'The status emoji\u2019s code.', resolve: (p) => str(p.event.wire, 'emoji_code') }),
  away: t.boolean({ nullable: true, description: 'The deprecated away flag.', resolve: (p) => bool(p.event.wire, 'away') }),
}));

export const UserEventRef = otherType('UserEvent', 'A user joined (ADD), changed (UPDATE) or became inaccessible (REMOVE) (kind USER).');
builder.objectFields(UserEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(record(p.event.wire.person), 'user_id') }),
  user: t.field({
    zulip: { cost: userLookupCost },
    type: UserRef,
    nullable: true,
    description: 'The user as they are now (loaded); null after REMOVE.',
    resolve: (p, _a, ctx) => (p.event.wire.op === 'remove' ? null : loadUser(ctx, num(record(p.event.wire.person), 'user_id'))),
  }),
  changes: t.field({ type: 'JSON', description: 'The fields sent (the `person` object).', resolve: (p) => record(p.event.wire.person) }),
}));

export const UserGroupEventRef = otherType(
  'UserGroupEvent',
  'A user group was created, changed or removed, or its members or subgroups changed (kind USER_GROUP).',
);
builder.objectFields(UserGroupEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  groupId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The group.',
    resolve: (p) => num(p.event.wire, 'group_id') ?? num(record(p.event.wire.group), 'id'),
  }),
  group: t.field({
    zulip: { cost: { each: 1 } },
    type: UserGroupRef,
    nullable: true,
    description: 'The group as it is now (loaded); null after REMOVE.',
    resolve: (p, _a, ctx) => {
      if (p.event.wire.op === 'remove') return null;
      const id = num(p.event.wire, 'group_id') ?? num(record(p.event.wire.group), 'id');
      return id === null ? null : ctx.loaders.userGroups.load(id);
    },
  }),
  userIds: t.field({ type: ['Long'], description: 'ADD_MEMBERS / REMOVE_MEMBERS: the users.', resolve: (p) => ints(p.event.wire.user_ids) }),
  subgroupIds: t.field({
    type: ['Long'],
    description: 'ADD_SUBGROUPS / REMOVE_SUBGROUPS: the subgroups.',
    resolve: (p) => ints(p.event.wire.direct_subgroup_ids ?? p.event.wire.subgroup_ids),
  }),
  changes: t.field({ type: 'JSON', description: 'UPDATE: the changed fields (empty otherwise).', resolve: (p) => record(p.event.wire.data) }),
}));

export const DraftsEventRef = otherType('DraftsEvent', 'The caller\u2019s drafts changed (kind DRAFTS; ops ADD, UPDATE, REMOVE).');
builder.objectFields(DraftsEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  drafts: t.field({
    type: [DraftRef],
    description: 'ADD / UPDATE: the drafts added or changed.',
    resolve: (p) => [...objects(p.event.wire.drafts), ...objects(p.event.wire.draft ? [p.event.wire.draft] : [])] as never[],
  }),
  draftId: t.field({ type: 'Long', nullable: true, description: 'REMOVE: the draft deleted.', resolve: (p) => num(p.event.wire, 'draft_id') }),
}));

export const ScheduledMessagesEventRef = otherType(
  'ScheduledMessagesEvent',
  'The caller\u2019s scheduled messages changed (kind SCHEDULED_MESSAGES; ops ADD, UPDATE, REMOVE).',
);
builder.objectFields(ScheduledMessagesEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  scheduledMessages: t.field({
    type: [ScheduledMessageRef],
    description: 'ADD / UPDATE: the scheduled messages added or changed.',
    resolve: (p) =>
      [...objects(p.event.wire.scheduled_messages), ...objects(p.event.wire.scheduled_message ? [p.event.wire.scheduled_message] : [])] as never[],
  }),
  scheduledMessageId: t.field({
    type: 'Long',
    nullable: true,
    description: 'REMOVE: the scheduled message deleted.',
    resolve: (p) => num(p.event.wire, 'scheduled_message_id'),
  }),
}));

export const SettingsEventRef = otherType('SettingsEvent', 'One of the caller\u2019s personal settings changed (kind SETTINGS).');
builder.objectFields(SettingsEventRef, (t) => ({
  property: t.string({
    nullable: true,
    description: 'The setting\u2019s name, as `PATCH /settings` names it.',
    resolve: (p) => str(p.event.wire, 'property') ?? str(p.event.wire, 'setting_name') ?? str(p.event.wire, 'notification_name'),
  }),
  value: t.field({
    type: 'JSON',
    nullable: true,
    description: 'Its new value.',
    resolve: (p) => p.event.wire.value ?? p.event.wire.setting ?? null,
  }),
  languageName: t.string({ nullable: true, description: 'For `default_language`: the language\u2019s name.', resolve: (p) => str(p.event.wire, 'language_name') }),
}));

export const AlertWordsEventRef = otherType('AlertWordsEvent', 'The caller\u2019s alert words changed (kind ALERT_WORDS).');
builder.objectFields(AlertWordsEventRef, (t) => ({
  alertWords: t.stringList({
    description: 'The whole new list.',
    resolve: (p) => (Array.isArray(p.event.wire.alert_words) ? p.event.wire.alert_words.filter((w): w is string => typeof w === 'string') : []),
  }),
}));

export const MutedUsersEventRef = otherType('MutedUsersEvent', 'The users the caller muted changed (kind MUTED_USERS).');
builder.objectFields(MutedUsersEventRef, (t) => ({
  userIds: t.field({
    type: ['Long'],
    description: 'Every muted user now.',
    resolve: (p) => objects(p.event.wire.muted_users).map((m) => num(m, 'id')).filter((x): x is number => x !== null),
  }),
}));
