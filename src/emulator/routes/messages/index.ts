/**
 * Messages: `GET /messages` (https://zulip.com/api/get-messages), `GET /messages/{id}`
 * (https://zulip.com/api/get-message), `POST /messages` (https://zulip.com/api/send-message),
 * `PATCH /messages/{id}` (https://zulip.com/api/update-message), `POST /messages/flags`
 * (https://zulip.com/api/update-message-flags) and `POST /messages/flags/narrow`
 * (https://zulip.com/api/update-message-flags-for-narrow), the edit history, read receipts,
 * reports and narrow checks (history.ts, receipts.ts, report.ts, matches.ts), with the events a Zulip server sends
 * for them (`message`, `update_message`, `delete_message`, `update_message_flags`;
 * https://zulip.com/api/get-events) and the `unread_msgs` / `starred_messages` register state.
 *
 * Every handler reads and validates all of its input before it changes the store, so a rejected
 * request never leaves a half-applied change. Where the API documentation leaves a detail open,
 * Zulip's own behaviour (zerver/views/message_*.py, zerver/actions/message_*.py) is the model.
 */
import type { Route } from '../../context.js';
import { updateMessage } from './edit.js';
import { getMessage, getMessages } from './fetch.js';
import { postFlags, postFlagsForNarrow } from './flags.js';
import { sendMessage } from './send.js';
import { deleteMessage } from './delete.js';
import { renderMessage } from './render.js';
import { markAllAsRead, markStreamAsRead, markTopicAsRead } from './read.js';
import { getMessageHistory } from './history.js';
import { getReadReceipts } from './receipts.js';
import { reportMessage } from './report.js';
import { checkMessagesMatchNarrow } from './matches.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';

export { accessMessage, messageListeners, notifyNewMessage } from './access.js';
export { MAX_MESSAGES_PER_FETCH, NOTIFICATION_BOT_EMAIL } from './rules.js';
export { notificationBot, sendWelcomeBotMessage } from './send.js';
export { initialState, starredMessageIds, unreadMessages } from './state.js';
export { displayTopic, messageFlagsFor, serializeMessage, type SerializeOptions, type WireMessage } from './wire.js';

export const routes: Route[] = [
  { operation: ops.getMessages, handler: getMessages },
  { operation: ops.sendMessage, handler: sendMessage },
  { operation: ops.getMessage, handler: getMessage },
  { operation: ops.updateMessage, handler: updateMessage },
  { operation: ops.deleteMessage, handler: deleteMessage },
  { operation: ops.updateMessageFlags, handler: postFlags },
  { operation: ops.updateMessageFlagsForNarrow, handler: postFlagsForNarrow },
  { operation: ops.renderMessage, handler: renderMessage },
  { operation: ops.markAllAsRead, handler: markAllAsRead },
  { operation: ops.markStreamAsRead, handler: markStreamAsRead },
  { operation: ops.markTopicAsRead, handler: markTopicAsRead },
  { operation: ops.getMessageHistory, handler: getMessageHistory },
  { operation: ops.getReadReceipts, handler: getReadReceipts },
  { operation: ops.reportMessage, handler: reportMessage },
  { operation: ops.checkMessagesMatchNarrow, handler: checkMessagesMatchNarrow },
];
