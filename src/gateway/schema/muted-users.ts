/**
 * Muting users (feature level 48): the `muteUser` and `unmuteUser` mutations. The server marks
 * a muted user's messages read for the caller; clients hide them (https://zulip.com/help/mute-a-user).
 * https://zulip.com/api/mute-user
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import { muteUser, unmuteUser } from '../../zulip/routes/muted-users.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { UserRef } from './users.js';

interface MuteChange {
  userId: number;
  muted: boolean;
}

const MuteUserPayloadRef = builder.objectRef<MuteChange>('MuteUserPayload').implement({
  description: 'A user the caller muted or unmuted.',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user\u2019s ID.', resolve: (p) => p.userId }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'The user (through the user loader; null with an error if no longer visible).',
      resolve: (p, _args, ctx) => ctx.loaders.user(p.userId),
    }),
    muted: t.boolean({ description: 'Whether the caller now mutes the user.', resolve: (p) => p.muted }),
  }),
});

/** Checks the ID and the server's level before any upstream call. */
async function checkMute(ctx: Context, userId: number, what: string): Promise<void> {
  if (!Number.isSafeInteger(userId) || userId <= 0) throw badInput('userId must be a positive user ID.', { argument: 'userId' });
  await requireFeatureLevel(ctx, featureLevels.mutedUsers, what);
}

const OPERATIONS = { mute: { id: 'mute-user', call: muteUser }, unmute: { id: 'unmute-user', call: unmuteUser } } as const;

builder.mutationFields((t) => {
  const field = (op: keyof typeof OPERATIONS, description: string) =>
    t.field({
      extensions: reaches(OPERATIONS[op].id),
      type: MuteUserPayloadRef,
      description: `${description} Feature level ${featureLevels.mutedUsers}.`,
      args: { userId: t.arg({ type: 'Long', required: true, description: `The user to ${op}.` }) },
      resolve: async (_root, args, ctx): Promise<MuteChange> => {
        await checkMute(ctx, args.userId, 'Muting users');
        await OPERATIONS[op].call(ctx.connection, { mutedUserId: args.userId });
        return { userId: args.userId, muted: op === 'mute' };
      },
    });
  return {
    muteUser: field(
      'mute',
      'Mutes a user for the caller; their messages are marked read. Fails with BAD_REQUEST for the caller ' +
        '("Cannot mute self"), an unknown or inaccessible user ("No such user") or one already muted.',
    ),
    unmuteUser: field('unmute', 'Unmutes a user. Fails with BAD_REQUEST for an unknown or inaccessible user ("No such user") or one not muted.'),
  };
});
