/**
 * Messages: the `Message` type (backed by the wire message), the typed `NarrowInput`, the
 * `messages` connection over Zulip's anchor API, lookups by ID, and the send / edit / flag
 * mutations. Reactions live in ../reactions.ts, which adds `Message.reactions`.
 *
 * Cost model (what a client pays upstream):
 * - `messages`, `messagesByIds`, `message`: one request each. Links (`sender`, `channel`,
 *   `editHistory.user`, recipients' `user`...) go through the per-request loaders, so a whole page
 *   costs at most one `GET /users` and one `GET /streams` more, whatever the number of senders.
 * - `content` is what the page was fetched as: HTML by default, Markdown with `applyMarkdown: false`.
 *   `rawContent` (Markdown) and `renderedContent` (HTML) are free when they match the fetched form,
 *   and otherwise cost one batched `GET /messages?message_ids=` for the whole page (feature level
 *   300; one `GET /messages/{id}` per message on older servers). `message(id)` gets the Markdown
 *   source with the message, so its `rawContent` is always free.
 * - Narrows that name channels, direct-message users, `is: [DM]` or `id` read the server's feature
 *   level (one `GET /server_settings` per gateway) to pick operator names.
 *
 * https://zulip.com/api/get-messages, https://zulip.com/api/construct-narrow
 *
 * One file per concern: enums.ts, narrow.ts (NarrowInput and its encoding), cursor.ts (cursors and
 * anchors), message.ts (the Message type), pagination.ts (the connection), queries.ts, payloads.ts
 * mutations.ts, read.ts (bulk mark-as-read), delete.ts, history.ts (edit history, read receipts), report.ts,
 * matches.ts (check messages against a narrow), render.ts and conversations.ts (a page grouped by
 * conversation). Importing this file registers them all.
 */
import './queries.js';
import './mutations.js';
import './read.js';
import './delete.js';
import './history.js';
import './report.js';
import './matches.js';
import './render.js';
import './conversations.js';

export * from './enums.js';
export { decodeCursor, encodeCursor, MessageAnchorInput, type AnchorShape } from './cursor.js';
export { narrowFor, NarrowInput, type NarrowShape } from './narrow.js';
export { MessageRef } from './message.js';
export { fetchMessagePage, MAX_PAGE_SIZE, MessageConnectionRef } from './pagination.js';
export * from './payloads.js';
