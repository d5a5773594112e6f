/**
 * The `updateChannel` and `archiveChannel` mutations, and the `MessageRetentionInput` they share
 * with the mutations that create channels.
 * https://zulip.com/api/update-stream, https://zulip.com/api/archive-stream
 */
import type { Channel, MessageRetentionDaysParam } from '../../../zulip/model/channels.js';
import { ZulipErrorCode } from '../../../zulip/error-codes.js';
import { ZulipApiError } from '../../../zulip/errors.js';
import { archiveStream, getStreamById, updateStream } from '../../../zulip/routes/channels.js';
import { getOwnUser } from '../../../zulip/routes/users.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../../upstream/feature-level.js';
import { GroupSettingUpdateInput, toWireGroupSettingUpdate, type GroupSettingUpdateInputShape } from '../group-settings.js';
import { reaches } from '../../zulip-operations.js';
import { channelOrNull, ChannelRef, primeChannels } from './index.js';

const MessageRetentionPolicyEnum = builder.enumType('MessageRetentionPolicy', {
  description: 'A message retention period that is not a number of days.',
  values: {
    REALM_DEFAULT: { value: 'realm_default', description: 'Follow the organization setting.' },
    UNLIMITED: { value: 'unlimited', description: 'Keep messages forever.' },
  } as const,
});

interface MessageRetentionInputShape {
  days?: number | null;
  policy?: 'realm_default' | 'unlimited' | null;
}

export const MessageRetentionInput = builder.inputRef<MessageRetentionInputShape>('MessageRetentionInput').implement({
  description: 'How long messages are kept: a number of days, or a policy. Exactly one field.',
  isOneOf: true,
  fields: (t) => ({
    days: t.int({ required: false, description: 'Delete messages this many days after they are sent (positive).' }),
    policy: t.field({ type: MessageRetentionPolicyEnum, required: false, description: 'REALM_DEFAULT or UNLIMITED.' }),
  }),
});

export function toWireRetention(input: MessageRetentionInputShape): MessageRetentionDaysParam {
  if (input.days != null) return input.days;
  if (input.policy != null) return input.policy;
  throw badInput('messageRetentionDays: give days or policy.');
}

/** The GraphQL argument, wire option and feature level of each permission update. */
const PERMISSION_UPDATES = [
  ['canAddSubscribersGroup', 'canAddSubscribersGroup', featureLevels.canAddSubscribersGroup],
  ['canRemoveSubscribersGroup', 'canRemoveSubscribersGroup', 0],
  ['canAdministerChannelGroup', 'canAdministerChannelGroup', featureLevels.canAdministerChannelGroup],
  ['canSendMessageGroup', 'canSendMessageGroup', featureLevels.canSendMessageGroup],
  ['canSubscribeGroup', 'canSubscribeGroup', featureLevels.canSubscribeGroup],
] as const;

/** Role IDs of https://zulip.com/api/roles-and-permissions. */
const OWNER_ROLE = 100;
const ADMINISTRATOR_ROLE = 200;

/**
 * Zulip applies a channel update step by step (privacy, default, retention, description, name,
 * permissions) with no transaction around them, so a later step's refusal leaves the earlier ones
 * applied. The role-gated steps (default channels: administrators; retention: owners) are checked
 * here first when an earlier step is asked too, at the cost of one `GET /users/me`.
 */
async function checkRoleBeforeLaterSteps(ctx: Context, asked: { privacy: boolean; isDefault: boolean; retention: boolean }): Promise<void> {
  const needsAdministrator = asked.isDefault && asked.privacy;
  const needsOwner = asked.retention && (asked.privacy || asked.isDefault);
  if (!needsAdministrator && !needsOwner) return;
  const { role } = await getOwnUser(ctx.connection);
  if (needsOwner && role > OWNER_ROLE) {
    throw badInput('updateChannel: messageRetentionDays needs an organization owner; nothing was changed.', { argument: 'messageRetentionDays' });
  }
  if (needsAdministrator && role > ADMINISTRATOR_ROLE) {
    throw badInput('updateChannel: isDefault needs an organization administrator; nothing was changed.', { argument: 'isDefault' });
  }
}

/** Re-reads a channel after a change; null when the caller can no longer see it. */
async function freshChannel(ctx: Context, id: number): Promise<Channel | null> {
  try {
    const { stream } = await getStreamById(ctx.connection, id);
    primeChannels(ctx, [stream]);
    return stream;
  } catch (error) {
    if (error instanceof ZulipApiError && error.code === ZulipErrorCode.badRequest) return null;
    throw error;
  }
}

builder.mutationFields((t) => ({
  updateChannel: t.field({
    extensions: reaches('update-stream'),
    type: ChannelRef,
    nullable: true,
    description:
      'Changes a channel (organization or channel administrators). Only the arguments given change. Returns the ' +
      'channel as it now is, or null when the caller can no longer see it. Refusals are GraphQL errors with the ' +
      'server code (BAD_REQUEST: "Invalid channel ID", "Invalid parameters", a stale `old` permission value...). ' +
      'The server applies privacy, isDefault, retention, description, name and permissions in that order and stops ' +
      'at a refusal; the role needed by isDefault or messageRetentionDays after a privacy change is checked first.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The channel.' }),
      description: t.arg.string({ required: false, description: 'New description (Markdown).' }),
      newName: t.arg.string({ required: false, description: 'New name.' }),
      isPrivate: t.arg.boolean({ required: false, description: 'Make the channel private (true) or public (false).' }),
      isWebPublic: t.arg.boolean({ required: false, description: 'Make the channel web-public (feature level 98).' }),
      historyPublicToSubscribers: t.arg.boolean({
        required: false,
        description: 'Whether new subscribers see older messages; false only for private channels.',
      }),
      isDefault: t.arg.boolean({ required: false, description: 'Add or remove it as a default channel (feature level 200).' }),
      messageRetentionDays: t.arg({
        type: MessageRetentionInput,
        required: false,
        description: 'How long messages are kept (organization owners only).',
      }),
      ...Object.fromEntries(
        PERMISSION_UPDATES.map(([name, , level]) => [
          name,
          t.arg({
            type: GroupSettingUpdateInput,
            required: false,
            description: `New value of ${name}${level ? ` (feature level ${level})` : ''}; with \`old\`, only if that is still current.`,
          }),
        ]),
      ) as Record<(typeof PERMISSION_UPDATES)[number][0], ReturnType<typeof t.arg>>,
    },
    resolve: async (_root, args, ctx) => {
      const a = args as typeof args & Partial<Record<(typeof PERMISSION_UPDATES)[number][0], GroupSettingUpdateInputShape | null>>;
      let needed = 0;
      const privacy = a.isPrivate != null || a.isWebPublic != null || a.historyPublicToSubscribers != null;
      if (a.isWebPublic != null) needed = Math.max(needed, featureLevels.channelWebPublic);
      if (a.historyPublicToSubscribers != null && a.isPrivate == null && a.isWebPublic == null) {
        needed = Math.max(needed, featureLevels.channelHistoryAlone);
      }
      if (a.isDefault != null) needed = Math.max(needed, featureLevels.channelDefault);
      const permissions: Record<string, ReturnType<typeof toWireGroupSettingUpdate>> = {};
      for (const [name, option, level] of PERMISSION_UPDATES) {
        const input = a[name];
        if (input == null) continue;
        permissions[option] = toWireGroupSettingUpdate(input, name);
        needed = Math.max(needed, level);
      }
      if (needed > 0) await requireFeatureLevel(ctx, needed, 'This channel change');
      if (privacy && (await getFeatureLevel(ctx)) < featureLevels.archivedChannelEdits) {
        const current = await channelOrNull(ctx, a.id);
        if (current?.is_archived) {
          await requireFeatureLevel(ctx, featureLevels.archivedChannelEdits, 'Changing the privacy of an archived channel');
        }
      }
      await checkRoleBeforeLaterSteps(ctx, { privacy, isDefault: a.isDefault != null, retention: a.messageRetentionDays != null });
      await updateStream(ctx.connection, {
        streamId: a.id,
        description: a.description ?? undefined,
        newName: a.newName ?? undefined,
        isPrivate: a.isPrivate ?? undefined,
        isWebPublic: a.isWebPublic ?? undefined,
        historyPublicToSubscribers: a.historyPublicToSubscribers ?? undefined,
        isDefaultStream: a.isDefault ?? undefined,
        messageRetentionDays: a.messageRetentionDays ? toWireRetention(a.messageRetentionDays) : undefined,
        ...permissions,
      });
      return freshChannel(ctx, a.id);
    },
  }),
  archiveChannel: t.field({
    extensions: reaches('archive-stream'),
    type: ChannelRef,
    nullable: true,
    description:
      'Archives a channel (organization or channel administrators). Returns the archived channel, or null when the ' +
      'server no longer shows it (before feature level 315).',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The channel.' }) },
    resolve: async (_root, args, ctx) => {
      await archiveStream(ctx.connection, { streamId: args.id });
      return freshChannel(ctx, args.id);
    },
  }),
}));
