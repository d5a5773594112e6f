/**
 * Custom emoji: the `CustomEmoji` type and the `customEmoji` query over `GET /realm/emoji`
 * (https://zulip.com/api/get-custom-emoji). Image paths are made absolute against the server URL.
 */
import type { RealmEmoji } from '../../zulip/model/emoji.js';
import { getCustomEmoji } from '../../zulip/routes/emoji.js';
import { builder } from '../builder.js';
import { isNotFound } from '../errors.js';
import { asNode, fromList } from './node.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';

const CustomEmojiRef = builder.objectRef<RealmEmoji>('CustomEmoji').implement({
  description: 'A custom emoji uploaded to the organization; reactions name it with type REALM_EMOJI and its ID as the code.',
  fields: (t) => ({
    zulipId: t.exposeString('id', { description: 'The emoji ID (the reaction code of a REALM_EMOJI reaction) (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).' }),
    name: t.exposeString('name', { description: 'The name users write between colons, e.g. `:octopus:`.' }),
    sourceUrl: t.string({
      description: 'The image, as an absolute URL on the chat server.',
      resolve: (e, _args, ctx) => new URL(e.source_url, ctx.upstream.baseUrl).href,
    }),
    stillUrl: t.string({
      nullable: true,
      description: 'A still frame of an animated image, as an absolute URL; null for a still image.',
      resolve: (e, _args, ctx) => (e.still_url ? new URL(e.still_url, ctx.upstream.baseUrl).href : null),
    }),
    deactivated: t.exposeBoolean('deactivated', { description: 'Whether it was deactivated (old messages still show it).' }),
    authorId: t.field({
      type: 'Long',
      nullable: true,
      description: 'Who uploaded it; null when unknown.',
      resolve: (e) => e.author_id ?? null,
    }),
    author: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who uploaded it; null when unknown or not visible to the caller.',
      resolve: async (e, _args, ctx) => {
        if (e.author_id == null) return null;
        const [user] = await ctx.loaders.users.loadMany([e.author_id]);
        if (isNotFound(user)) return null;
        if (user instanceof Error) throw user;
        return user ?? null;
      },
    }),
  }),
});

// Deactivated ones too: `customEmoji(includeDeactivated: true)` lists them to everyone.
asNode(CustomEmojiRef, {
  key: (e) => e.id,
  keyKind: 'string',
  load: fromList(async (ctx) => Object.values((await getCustomEmoji(ctx.connection)).emoji), (e) => e.id, 'custom emoji'),
});

builder.queryField('customEmoji', (t) =>
  t.field({
    extensions: reaches('get-custom-emoji'),
    type: [CustomEmojiRef],
    nullable: true,
    description: 'The organization\u2019s custom emoji by ID, active ones only unless includeDeactivated. One upstream request.',
    args: {
      includeDeactivated: t.arg.boolean({ required: false, defaultValue: false, description: 'Also list deactivated emoji.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { emoji } = await getCustomEmoji(ctx.connection);
      return Object.values(emoji)
        .filter((e) => args.includeDeactivated || !e.deactivated)
        .sort((a, b) => Number(a.id) - Number(b.id));
    },
  }),
);
