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

export { accessMessage, messageListeners, notifyNewMessage } from './access.js';
export { MAX_MESSAGES_PER_FETCH, NOTIFICATION_BOT_EMAIL } from './rules.js';
export { notificationBot, sendWelcomeBotMessage } from './send.js';
export { initialState, starredMessageIds, unreadMessages } from './state.js';
export { displayTopic, messageFlagsFor, serializeMessage, type SerializeOptions, type WireMessage } from './wire.js';

export const routes: Route[] = [
  { method: 'GET', path: '/messages', handler: getMessages },
  { method: 'POST', path: '/messages', handler: sendMessage },
  { method: 'GET', path: '/messages/:message_id', handler: getMessage },
  { method: 'PATCH', path: '/messages/:message_id', handler: updateMessage },
  { method: 'DELETE', path: '/messages/:message_id', handler: deleteMessage },
  { method: 'POST', path: '/messages/flags', handler: postFlags },
  { method: 'POST', path: '/messages/flags/narrow', handler: postFlagsForNarrow },
  { method: 'POST', path: '/messages/render', handler: renderMessage },
  { method: 'POST', path: '/mark_all_as_read', handler: markAllAsRead },
  { method: 'POST', path: '/mark_stream_as_read', handler: markStreamAsRead },
  { method: 'POST', path: '/mark_topic_as_read', handler: markTopicAsRead },
  { method: 'GET', path: '/messages/:message_id/history', handler: getMessageHistory },
  { method: 'GET', path: '/messages/:message_id/read_receipts', handler: getReadReceipts },
  { method: 'POST', path: '/messages/:message_id/report', handler: reportMessage },
  { method: 'GET', path: '/messages/matches_narrow', handler: checkMessagesMatchNarrow },
];
