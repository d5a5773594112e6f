/**
 * The message queries: `messages` (a Relay connection, one upstream request per page),
 * `messagesByIds` (one request, feature level 300) and `message` (one request, Markdown source
 * included so `rawContent` is free). https://zulip.com/api/get-messages,
 * https://zulip.com/api/get-message
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import { getMessage, getMessages } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { MessageAnchorInput } from './cursor.js';
import { MessageRef, primeMessageLoader } from './message.js';
import { NarrowInput, narrowFor } from './narrow.js';
import { fetchMessagePage, isLoaderShaped, MAX_PAGE_SIZE, MessageConnectionRef } from './pagination.js';
import { reaches } from '../../zulip-operations.js';

/** Arguments the message queries share. */
const APPLY_MARKDOWN_ARG = { required: false, description: 'Fetch `content` as HTML (default true) or as Markdown.' } as const;
const ALLOW_EMPTY_TOPIC_NAME_ARG = { required: false, description: 'Return the empty topic as "" instead of its display name (default false).' } as const;

builder.queryFields((t) => ({
  messages: t.field({
    extensions: reaches('get-messages'),
    type: MessageConnectionRef,
    nullable: true,
    description:
      'Messages matching a narrow, as a Relay connection over the anchor API (one upstream request per page). ' +
      `Pass \`first\` or \`last\` (at most ${MAX_PAGE_SIZE}); \`after\`/\`before\` page on from a cursor, ` +
      '`anchor` places the window (e.g. `{ named: FIRST_UNREAD }` with both `last` and `first` for the messages ' +
      'around the first unread).',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages; default: the caller\u2019s whole history.' }),
      anchor: t.arg({
        type: MessageAnchorInput,
        required: false,
        description: 'Where the window starts when no cursor is given (default OLDEST with `first`, NEWEST with `last`).',
      }),
      first: t.arg.int({ required: false, description: `Messages from the anchor (or after the \`after\` cursor) on; at most ${MAX_PAGE_SIZE}.` }),
      after: t.arg.string({ required: false, description: 'Page forward from this cursor (exclusive).' }),
      last: t.arg.int({ required: false, description: `Messages before the anchor (or the \`before\` cursor); at most ${MAX_PAGE_SIZE}.` }),
      before: t.arg.string({ required: false, description: 'Page backward from this cursor (exclusive).' }),
      includeAnchor: t.arg.boolean({
        required: false,
        description: 'Whether the anchor message itself may be included (default true; cursors always exclude it).',
      }),
      applyMarkdown: t.arg.boolean(APPLY_MARKDOWN_ARG),
      clientGravatar: t.arg.boolean({
        required: false,
        description: 'Let `avatarUrl` be null for gravatar users whose email you see, to compute it yourself (default false).',
      }),
      allowEmptyTopicName: t.arg.boolean({ required: false, description: 'Return the empty topic as "" instead of its display name (default false; feature level 334).' }),
    },
    resolve: (_root, args, ctx) => fetchMessagePage(ctx, args),
  }),
  messagesByIds: t.field({
    extensions: reaches('get-messages'),
    type: [MessageRef],
    nullable: { list: true, items: true },
    description:
      'Messages by ID in one upstream request (feature level 300, else UNSUPPORTED_BY_SERVER), in the order asked; ' +
      'null for IDs that do not exist, are not visible to the caller or do not match the narrow.',
    args: {
      ids: t.arg({ type: ['Long'], required: true, description: `Message IDs (at most ${MAX_PAGE_SIZE}).` }),
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Only return the messages matching it.' }),
      applyMarkdown: t.arg.boolean(APPLY_MARKDOWN_ARG),
      allowEmptyTopicName: t.arg.boolean(ALLOW_EMPTY_TOPIC_NAME_ARG),
    },
    resolve: async (_root, args, ctx) => {
      if (args.ids.length > MAX_PAGE_SIZE) {
        throw badInput(`\`ids\` may name at most ${MAX_PAGE_SIZE} messages.`, { argument: 'ids', maxPageSize: MAX_PAGE_SIZE });
      }
      await requireFeatureLevel(ctx, featureLevels.messageIds, 'messagesByIds');
      if (args.ids.length === 0) return [];
      const { messages } = await getMessages(ctx.connection, {
        messageIds: [...new Set(args.ids)],
        narrow: await narrowFor(ctx, args.narrow),
        applyMarkdown: args.applyMarkdown ?? true,
        clientGravatar: false,
        allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
      });
      if (isLoaderShaped(args) && args.narrow == null) primeMessageLoader(ctx, messages);
      const byId = new Map(messages.map((m) => [m.id, m]));
      return args.ids.map((id) => byId.get(id) ?? null);
    },
  }),
  message: t.field({
    extensions: reaches('get-message'),
    type: MessageRef,
    nullable: true,
    description: 'One message by ID (one upstream request, Markdown source included, so `rawContent` is free).',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The message ID.' }),
      applyMarkdown: t.arg.boolean(APPLY_MARKDOWN_ARG),
      allowEmptyTopicName: t.arg.boolean(ALLOW_EMPTY_TOPIC_NAME_ARG),
    },
    resolve: async (_root, args, ctx) => {
      const { message, raw_content } = await getMessage(ctx.connection, {
        messageId: args.id,
        applyMarkdown: args.applyMarkdown ?? undefined,
        allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
      });
      if (raw_content !== undefined) ctx.loaders.content.setRawContent(message, raw_content);
      return message;
    },
  }),
}));
