/**
 * `messagesMatchingNarrow` (https://zulip.com/api/check-messages-match-narrow): which of some
 * messages a client already holds match a narrow (to place an edited or moved message in a view),
 * with search hits highlighted. One upstream call.
 */
import { checkMessagesMatchNarrow } from '../../../zulip/routes/messages.js';
import { narrowResources } from '../../live/resources.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { messageOrNull } from './history.js';
import { MessageRef } from './message.js';
import { NarrowInput, narrowFor } from './narrow.js';

interface NarrowMatch {
  messageId: number;
  matchContent: string;
  matchTopic: string;
}

const NarrowMatchRef = builder.objectRef<NarrowMatch>('NarrowMatch').implement({
  description: 'A message that matches a narrow, with the search hits of a `search` narrow highlighted.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The message ID.', resolve: (m) => m.messageId }),
    message: t.field({ zulip: { cost: { perBatch: 1 } }, type: MessageRef, nullable: true, description: 'The message (fetched only when selected).', resolve: (m, _args, ctx) => messageOrNull(ctx, m.messageId) }),
    matchContent: t.exposeString('matchContent', { description: 'The HTML content, search hits in `<span class="highlight">`.' }),
    matchTopic: t.exposeString('matchTopic', { description: 'The HTML-escaped topic, search hits in `<span class="highlight">`.' }),
  }),
});

builder.queryField('messagesMatchingNarrow', (t) =>
  t.field({
    zulip: { reaches: ['check-messages-match-narrow'], live: (args) => narrowResources(args.narrow) },
    type: [NarrowMatchRef],
    description:
      'Of the given messages, those the caller received that match the narrow, in ascending ID order (messages only ' +
      'visible through a channel\u2019s public history never match). Fails with BAD_REQUEST for an invalid narrow.',
    args: {
      ids: t.arg({ type: ['Long'], required: true, description: 'The messages to check (at least one).' }),
      narrow: t.arg({ type: NarrowInput, required: true, description: 'The narrow to check them against.' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.ids.length === 0) throw badInput('messagesMatchingNarrow: `ids` must name at least one message.', { argument: 'ids' });
      if (args.ids.some((id) => id <= 0)) throw badInput('messagesMatchingNarrow: `ids` must be positive message IDs.', { argument: 'ids' });
      const narrow = await narrowFor(ctx, args.narrow);
      const { messages } = await checkMessagesMatchNarrow(ctx.connection, { msgIds: args.ids, narrow });
      return Object.entries(messages)
        .map(([id, m]) => ({ messageId: Number(id), matchContent: m.match_content, matchTopic: m.match_subject }))
        .sort((a, b) => a.messageId - b.messageId);
    },
  }),
);
