/**
 * Emoji reactions: the `Reaction` type, `Message.reactions`, and the add/remove mutations.
 *
 * Errors: REACTION_DOES_NOT_EXIST (removing a reaction that is not there) and
 * REACTION_ALREADY_EXISTS (adding one twice) are GraphQL errors whose `extensions.code` is that
 * upstream code, as every other refusal: the client has nothing to act on beyond the code itself
 * (the schema uses unions only for failures that carry data). Servers before feature level 193 say
 * BAD_REQUEST for both.
 * https://zulip.com/api/add-reaction, https://zulip.com/api/remove-reaction
 */
import type { Reaction, ReactionType } from '../../zulip/model/reactions.js';
import { addReaction, removeReaction } from '../../zulip/routes/reactions.js';
import { builder } from '../builder.js';
import { MessageRef } from './messages/index.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';
import { userLookupCost } from '../upstream/cost.js';

const ReactionTypeEnum = builder.enumType('ReactionType', {
  description: 'The namespace of an emoji code.',
  values: {
    UNICODE_EMOJI: { value: 'unicode_emoji', description: 'A Unicode emoji; the code is its dash-separated hex codepoints.' },
    REALM_EMOJI: { value: 'realm_emoji', description: 'A custom emoji uploaded to the organization; the code is its ID.' },
    SERVICE_EXTRA_EMOJI: {
      value: 'service_extra_emoji',
      description: 'A special emoji that comes with the server; the code is its name (`zulip_extra_emoji` on older servers).',
    },
  } as const,
});

/** Older servers name the extra-emoji namespace `zulip_extra_emoji`; it is the same namespace. */
function normalizeType(type: ReactionType): Exclude<ReactionType, 'zulip_extra_emoji'> {
  return type === 'zulip_extra_emoji' ? 'service_extra_emoji' : type;
}

/** Feature level 2 added `user_id`; before, only the deprecated `user` object named the user. */
function userIdOf(reaction: Reaction): number {
  return reaction.user_id ?? reaction.user?.id;
}

export const ReactionRef = builder.objectRef<Reaction>('Reaction').implement({
  description: 'One user\u2019s emoji reaction to a message.',
  fields: (t) => ({
    emojiName: t.exposeString('emoji_name', { description: 'The emoji\u2019s name, e.g. `octopus`.' }),
    emojiCode: t.exposeString('emoji_code', { description: 'The emoji\u2019s code in the namespace of `reactionType`.' }),
    reactionType: t.field({
      type: ReactionTypeEnum,
      description: 'The namespace of `emojiCode`.',
      resolve: (r) => normalizeType(r.reaction_type),
    }),
    userId: t.field({ type: 'Long', description: 'Who reacted.', resolve: userIdOf }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who reacted (one `GET /users` per request for all users); null if the caller cannot see them.',
      extensions: userLookupCost,
      resolve: (r, _args, ctx) => ctx.loaders.user(userIdOf(r)),
    }),
  }),
});

builder.objectField(MessageRef, 'reactions', (t) =>
  t.field({
    type: [ReactionRef],
    description: 'Emoji reactions, one entry per user and emoji.',
    resolve: (m) => m.reactions ?? [],
  }),
);

interface ReactionChange {
  messageId: number;
}

const ReactionPayloadRef = builder.objectRef<ReactionChange>('ReactionPayload').implement({
  description: 'The result of adding or removing a reaction.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The message reacted to.', resolve: (p) => p.messageId }),
    message: t.field({
      type: MessageRef,
      nullable: true,
      description: 'The message with its reactions after the change (fetched only when selected; feature level 300).',
      resolve: (p, _args, ctx) => ctx.loaders.messages.clear(p.messageId).load(p.messageId),
    }),
  }),
});

const reactionArgs = {
  messageId: { description: 'The message.' },
  emojiName: { description: 'The emoji\u2019s name, e.g. `octopus`.' },
  emojiCode: { description: 'The emoji\u2019s code (default: looked up from the name).' },
  reactionType: { description: 'The namespace of the code (default: Unicode, or custom when the name is a custom emoji).' },
};

builder.mutationFields((t) => ({
  addReaction: t.field({
    extensions: reaches('add-reaction'),
    type: ReactionPayloadRef,
    description: 'Adds the caller\u2019s emoji reaction to a message. Adding it twice fails with REACTION_ALREADY_EXISTS.',
    args: {
      messageId: t.arg({ type: 'Long', required: true, ...reactionArgs.messageId }),
      emojiName: t.arg.string({ required: true, ...reactionArgs.emojiName }),
      emojiCode: t.arg.string({ required: false, ...reactionArgs.emojiCode }),
      reactionType: t.arg({ type: ReactionTypeEnum, required: false, ...reactionArgs.reactionType }),
    },
    resolve: async (_root, args, ctx) => {
      await addReaction(ctx.connection, {
        messageId: args.messageId,
        emojiName: args.emojiName,
        emojiCode: args.emojiCode ?? undefined,
        reactionType: args.reactionType ?? undefined,
      });
      return { messageId: args.messageId };
    },
  }),
  removeReaction: t.field({
    extensions: reaches('remove-reaction'),
    type: ReactionPayloadRef,
    description:
      'Removes the caller\u2019s emoji reaction from a message, named by `emojiName` or by `emojiCode` and ' +
      '`reactionType`. When there is no such reaction: a GraphQL error with code REACTION_DOES_NOT_EXIST.',
    args: {
      messageId: t.arg({ type: 'Long', required: true, ...reactionArgs.messageId }),
      emojiName: t.arg.string({ required: false, ...reactionArgs.emojiName }),
      emojiCode: t.arg.string({ required: false, ...reactionArgs.emojiCode }),
      reactionType: t.arg({ type: ReactionTypeEnum, required: false, ...reactionArgs.reactionType }),
    },
    resolve: async (_root, args, ctx) => {
      await removeReaction(ctx.connection, {
        messageId: args.messageId,
        emojiName: args.emojiName ?? undefined,
        emojiCode: args.emojiCode ?? undefined,
        reactionType: args.reactionType ?? undefined,
      });
      return { messageId: args.messageId };
    },
  }),
}));
