/**
 * `deleteMessage`: deletes a message for everyone (https://zulip.com/api/delete-message). The
 * server tells every reader with a `delete_message` event.
 */
import { deleteMessage } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { payloadIds } from '../payload-ids.js';

const DeleteMessagePayloadRef = builder.objectRef<{ id: number }>('DeleteMessagePayload').implement({
  description: 'A message that was deleted.',
  fields: (t) => ({
    ...payloadIds(t, 'messageId', 'message', 'Message'),
  }),
});

builder.mutationField('deleteMessage', (t) =>
  t.field({
    zulip: { reaches: ['delete-message'], writes: ['delete_message'] },
    type: DeleteMessagePayloadRef,
    description:
      'Deletes a message for everyone. Administrators (by default) may delete any message; others their own or their ' +
      'bots\u2019, within the organization\u2019s time limit. Fails with BAD_REQUEST: "Invalid message(s)" (unknown or ' +
      'unreadable), "You don\u2019t have permission to delete this message", "The time limit for deleting this message has passed".',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The message to delete.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.id <= 0) throw badInput('deleteMessage: `id` must be a positive message ID.', { argument: 'id' });
      await deleteMessage(ctx.connection, { messageId: args.id });
      return { id: args.id };
    },
  }),
);
