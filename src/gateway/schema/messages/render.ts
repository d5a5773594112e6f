/**
 * `renderMessage`: a preview of the HTML the server would give a message (https://zulip.com/api/render-message).
 * A query, since nothing is stored or sent, although Zulip takes it as a POST.
 */
import { renderMessage } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';

builder.queryField('renderMessage', (t) =>
  t.string({
    zulip: { reaches: ['render-message'], live: [] },
    nullable: true,
    description: 'The HTML the server would store for a message with this Markdown content (a draft preview); one upstream call.',
    args: { content: t.arg.string({ required: true, description: 'The message content, in Zulip-flavored Markdown.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.content.includes('\u0000')) throw badInput('renderMessage: `content` must not contain a null byte.', { argument: 'content' });
      return (await renderMessage(ctx.connection, { content: args.content })).rendered;
    },
  }),
);
