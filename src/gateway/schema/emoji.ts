/**
 * Custom emoji: the `CustomEmoji` type and the `customEmoji` query over `GET /realm/emoji`
 * (https://zulip.com/api/get-custom-emoji), `uploadCustomEmoji` (a GraphQL multipart request
 * streamed like `uploadFile`, https://zulip.com/api/upload-custom-emoji) and
 * `deactivateCustomEmoji` (https://zulip.com/api/deactivate-custom-emoji). Image paths are made
 * absolute against the server URL.
 */
import type { RealmEmoji } from '../../zulip/model/emoji.js';
import { deactivateCustomEmoji, getCustomEmoji, uploadCustomEmoji } from '../../zulip/routes/emoji.js';
import { builder } from '../builder.js';
import { requireCredentials, type Context } from '../context.js';
import { NO_CALL, userLookupCost } from '../upstream/cost.js';
import { badInput } from '../errors.js';
import { asNode, fromList } from './node.js';
import { sendBounded, uploadCall } from '../upload.js';
import { UserRef, userOrNull } from './users.js';

const CustomEmojiRef = builder.objectRef<RealmEmoji>('CustomEmoji').implement({
  description: 'A custom emoji uploaded to the organization; reactions name it with type REALM_EMOJI and its ID as the code.',
  fields: (t) => ({
    zulipId: t.exposeString('id', { description: 'The emoji ID (the reaction code of a REALM_EMOJI reaction) (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).' }),
    name: t.exposeString('name', { description: 'The name users write between colons, e.g. `:octopus:`.' }),
    sourceUrl: t.string({
      zulip: { cost: NO_CALL },
      description: 'The image, as an absolute URL on the chat server.',
      resolve: (e, _args, ctx) => new URL(e.source_url, ctx.upstream.baseUrl).href,
    }),
    stillUrl: t.string({
      zulip: { cost: NO_CALL },
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
      zulip: { cost: userLookupCost },
      type: UserRef,
      nullable: true,
      description: 'Who uploaded it; null when unknown or not visible to the caller.',
      resolve: (e, _args, ctx) => (e.author_id == null ? null : userOrNull(ctx, e.author_id)),
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
    zulip: { reaches: ['get-custom-emoji'], live: [] },
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

/**
 * Zulip's default `MAX_EMOJI_FILE_SIZE_MIB`: servers do not report theirs, so an image over it is
 * refused here only as the server itself would refuse it.
 */
export const MAX_EMOJI_FILE_BYTES = 5 * 1024 * 1024;

/** The emoji named `name` after a change, active first (one `GET /realm/emoji`). */
async function emojiNamed(ctx: Context, name: string): Promise<RealmEmoji | null> {
  const { emoji } = await getCustomEmoji(ctx.connection);
  const named = Object.values(emoji).filter((e) => e.name === name);
  return named.find((e) => !e.deactivated) ?? named.sort((a, b) => Number(b.id) - Number(a.id))[0] ?? null;
}

function checkedName(name: string): string {
  const normalized = name.trim().replace(/ /g, '_');
  if (normalized === '') throw badInput('name must not be empty', { argument: 'name' });
  return normalized;
}

builder.mutationField('uploadCustomEmoji', (t) =>
  t.field({
    zulip: { reaches: ['upload-custom-emoji'], writes: ['realm_emoji'] },
    type: CustomEmojiRef,
    nullable: true,
    description:
      'Adds a custom emoji from one image, sent as a GraphQL multipart request like `uploadFile` and streamed the ' +
      'same way, bounded by Zulip\u2019s emoji limit (5 MiB: UPLOAD_TOO_LARGE). Answers the new emoji. Two upstream requests.',
    args: {
      name: t.arg.string({ required: true, description: 'The name users write between colons: lowercase letters, digits, `-` and `_` (spaces become `_`).' }),
      file: t.arg({ type: 'Upload', required: true, description: 'The image, the file part of the request mapped to this variable.' }),
    },
    resolve: async (_root, args, ctx) => {
      const name = checkedName(args.name);
      requireCredentials(ctx); // anonymous: refused before the image goes upstream
      const { timing, connection } = uploadCall(ctx.server, ctx.connection);
      await sendBounded(args.file, MAX_EMOJI_FILE_BYTES, timing, (file, call) => uploadCustomEmoji(connection, name, file, call));
      return emojiNamed(ctx, name);
    },
  }),
);

builder.mutationField('deactivateCustomEmoji', (t) =>
  t.field({
    zulip: { reaches: ['deactivate-custom-emoji'], writes: ['realm_emoji'] },
    type: CustomEmojiRef,
    nullable: true,
    description:
      'Deactivates a custom emoji (old messages still show it): an administrator, or the emoji\u2019s author. Answers ' +
      'the emoji, now deactivated. Two upstream requests.',
    args: { name: t.arg.string({ required: true, description: 'The emoji\u2019s name.' }) },
    resolve: async (_root, args, ctx) => {
      const name = checkedName(args.name);
      await deactivateCustomEmoji(ctx.connection, { emojiName: name });
      return emojiNamed(ctx, name);
    },
  }),
);
