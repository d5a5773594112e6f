/**
 * User status: a short text and an emoji a user shows beside their name. The `userStatus` query
 * (feature level 262), the `updateStatus` mutation (the caller's own) and `updateStatusForUser`
 * (an administrator changes another user's, feature level 407).
 * https://zulip.com/api/get-user-status
 */
import type { UserStatus } from '../../zulip/model/user-status.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { getOwnUser } from '../../zulip/routes/users.js';
import { getUserStatus, updateStatus, updateStatusForUser } from '../../zulip/routes/user-status.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { UserRef } from './users.js';

/** Zulip's limit on a status text. */
const MAX_STATUS_TEXT_LENGTH = 60;

interface StatusOf {
  userId: number;
  status: UserStatus;
}

const UserStatusRef = builder.objectRef<StatusOf>('UserStatus').implement({
  description: 'The status a user shows beside their name. https://zulip.com/api/get-user-status',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user\u2019s ID (also the status\u2019s identity).', resolve: (s) => s.userId }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'The user (through the user loader).',
      resolve: (s, _args, ctx) => ctx.loaders.user(s.userId),
    }),
    text: t.string({ nullable: true, description: 'The status text; null when none is set.', resolve: (s) => s.status.status_text ?? null }),
    emojiName: t.string({ nullable: true, description: 'The status emoji\u2019s name; null when none is set.', resolve: (s) => s.status.emoji_name ?? null }),
    emojiCode: t.string({ nullable: true, description: 'The status emoji\u2019s code; null when none is set.', resolve: (s) => s.status.emoji_code ?? null }),
    reactionType: t.string({
      nullable: true,
      description: 'The emoji\u2019s namespace (`unicode_emoji`, `realm_emoji`, `zulip_extra_emoji`); null when none is set.',
      resolve: (s) => s.status.reaction_type ?? null,
    }),
    away: t.boolean({ description: 'The deprecated "away" flag (feature level 148 replaced it by presence_enabled).', resolve: (s) => s.status.away === true }),
  }),
});

async function statusOf(ctx: Context, userId: number): Promise<StatusOf> {
  await requireFeatureLevel(ctx, featureLevels.getUserStatus, 'Reading a user\u2019s status');
  return { userId, status: (await getUserStatus(ctx.connection, { userId })).status };
}

builder.queryField('userStatus', (t) =>
  t.field({
    extensions: reaches('get-user-status'),
    type: UserStatusRef,
    nullable: true,
    description: `A user\u2019s status. An unknown user fails with BAD_REQUEST ("No such user"). Feature level ${featureLevels.getUserStatus}.`,
    args: { userId: t.arg({ type: 'Long', required: true, description: 'The user.' }) },
    resolve: (_root, args, ctx) => statusOf(ctx, args.userId),
  }),
);

const UpdateStatusPayloadRef = builder.objectRef<object>('UpdateStatusPayload').implement({
  description: 'The caller\u2019s status was changed.',
  fields: (t) => ({
    ok: t.boolean({ description: 'Always true.', resolve: () => true }),
    status: t.field({
      type: UserStatusRef,
      description: `The caller\u2019s status as the server now holds it (fetched only when selected; feature level ${featureLevels.getUserStatus}).`,
      resolve: async (_p, _args, ctx) => statusOf(ctx, (await getOwnUser(ctx.connection)).user_id),
    }),
  }),
});

interface StatusArgs {
  text?: string | null;
  emojiName?: string | null;
  emojiCode?: string | null;
  reactionType?: string | null;
  away?: boolean | null;
}

/** The wire change of a status mutation, refused with BAD_USER_INPUT before any call when Zulip would refuse it. */
function statusChange(args: StatusArgs, field: string) {
  const text = args.text?.trim();
  if (text !== undefined && text.length > MAX_STATUS_TEXT_LENGTH) {
    throw badInput(`text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters).`, { argument: 'text', maxLength: MAX_STATUS_TEXT_LENGTH });
  }
  if (args.emojiName == null && (args.emojiCode != null || args.reactionType != null)) {
    throw badInput('emojiCode and reactionType need emojiName.', { argument: 'emojiName' });
  }
  if (text === undefined && args.emojiName == null && args.away == null) throw badInput(`${field}: give at least one value.`);
  return {
    ...(text !== undefined && { statusText: text }),
    ...(args.emojiName != null && { emojiName: args.emojiName }),
    ...(args.emojiCode != null && { emojiCode: args.emojiCode }),
    ...(args.reactionType != null && { reactionType: args.reactionType }),
    ...(args.away != null && { away: args.away }),
  };
}

builder.mutationField('updateStatus', (t) =>
  t.field({
    extensions: reaches('update-status'),
    type: UpdateStatusPayloadRef,
    description:
      'Changes the caller\u2019s status: give at least one value. An empty text clears it, an empty emojiName clears the emoji; ' +
      'emojiCode and reactionType need emojiName. Unknown emoji fail with BAD_REQUEST.',
    args: {
      text: t.arg.string({ required: false, description: `The status text (trimmed; at most ${MAX_STATUS_TEXT_LENGTH} characters).` }),
      emojiName: t.arg.string({ required: false, description: 'The emoji\u2019s name; empty clears the emoji.' }),
      emojiCode: t.arg.string({ required: false, description: 'The emoji\u2019s code (default: looked up from the name).' }),
      reactionType: t.arg.string({ required: false, description: 'The emoji\u2019s namespace (default: from the name).' }),
      away: t.arg.boolean({ required: false, description: 'Deprecated: the legacy "away" flag.' }),
    },
    resolve: async (_root, args, ctx) => {
      await updateStatus(ctx.connection, statusChange(args, 'updateStatus'));
      return {};
    },
  }),
);

const UpdateStatusForUserPayloadRef = builder.objectRef<{ userId: number }>('UpdateStatusForUserPayload').implement({
  description: 'Another user\u2019s status was changed.',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user whose status changed.', resolve: (p) => p.userId }),
    status: t.field({
      type: UserStatusRef,
      description: 'The user\u2019s status as the server now holds it (one more call, only when selected).',
      resolve: (p, _args, ctx) => statusOf(ctx, p.userId),
    }),
  }),
});

builder.mutationField('updateStatusForUser', (t) =>
  t.field({
    extensions: reaches('update-status-for-user'),
    type: UpdateStatusForUserPayloadRef,
    description:
      `Changes another user\u2019s status (administrators; feature level ${featureLevels.updateStatusForUser}, bots with an ` +
      `administrator role from ${featureLevels.updateStatusForUserBots}), with the rules of updateStatus. Others get BAD_REQUEST ` +
      '"Insufficient permission".',
    args: {
      userId: t.arg({ type: 'Long', required: true, description: 'The user whose status to change.' }),
      text: t.arg.string({ required: false, description: `The status text (trimmed; at most ${MAX_STATUS_TEXT_LENGTH} characters); empty clears it.` }),
      emojiName: t.arg.string({ required: false, description: 'The emoji\u2019s name; empty clears the emoji.' }),
      emojiCode: t.arg.string({ required: false, description: 'The emoji\u2019s code (default: looked up from the name).' }),
      reactionType: t.arg.string({ required: false, description: 'The emoji\u2019s namespace (default: from the name).' }),
    },
    resolve: async (_root, args, ctx) => {
      const change = statusChange(args, 'updateStatusForUser');
      await requireFeatureLevel(ctx, featureLevels.updateStatusForUser, 'Changing another user\u2019s status');
      await updateStatusForUser(ctx.connection, { userId: args.userId, ...change });
      return { userId: args.userId };
    },
  }),
);
