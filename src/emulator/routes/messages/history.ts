/**
 * `GET /messages/{message_id}/history` (https://zulip.com/api/get-message-history): the stored
 * edit history (newest first, only what each edit changed) filled out into snapshots of the
 * message after each edit, oldest first, as Zulip's fill_edit_history_entries does
 * (zerver/lib/message.py).
 */
import type { MessageSnapshot } from '../../../zulip/model/messages.js';
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { Store } from '../../store.js';
import { accessMessage } from './access.js';
import { displayTopic } from './wire.js';

/**
 * The emulator's stand-in for Zulip's highlight_html_differences: the whole previous version
 * marked deleted and the whole new one inserted (Zulip marks word by word), in Zulip's classes.
 */
function htmlDiff(previous: string, current: string): string {
  return `<span class="highlight_text_deleted">${previous}</span><span class="highlight_text_inserted">${current}</span>`;
}

export function getMessageHistory(ctx: RouteContext): Record<string, unknown> {
  const { store, user } = ctx;
  const messageId = ctx.pathInt('message_id');
  const allowEmpty = ctx.params.bool('allow_empty_topic_name', false);
  if (!store.realm.settings.allow_edit_history) throw badRequest('Message edit history is disabled in this organization');
  const message = accessMessage(store, user, messageId);
  const topic = (name: string) => displayTopic(store, name, allowEmpty);
  return { message_history: snapshots(store, message.id, topic) };
}

function snapshots(store: Store, messageId: number, topic: (name: string) => string): MessageSnapshot[] {
  const message = store.messages.get(messageId)!;
  let content = message.content;
  let rendered = message.rendered_content;
  let currentTopic = message.topic;
  const out: MessageSnapshot[] = [];
  for (const edit of message.edit_history) {
    const snapshot: MessageSnapshot = { timestamp: edit.timestamp, topic: topic(currentTopic), user_id: edit.user_id, content, rendered_content: rendered };
    if (edit.prev_topic !== undefined) {
      currentTopic = edit.prev_topic;
      snapshot.prev_topic = topic(currentTopic);
    }
    if (edit.prev_stream !== undefined) {
      snapshot.prev_stream = edit.prev_stream;
      if (edit.stream !== undefined) snapshot.stream = edit.stream;
    }
    if (edit.prev_content !== undefined) {
      snapshot.prev_content = edit.prev_content;
      snapshot.prev_rendered_content = edit.prev_rendered_content ?? '';
      snapshot.content_html_diff = htmlDiff(snapshot.prev_rendered_content, rendered);
      content = edit.prev_content;
      rendered = snapshot.prev_rendered_content;
    }
    out.push(snapshot);
  }
  out.push({ topic: topic(currentTopic), content, rendered_content: rendered, timestamp: message.timestamp, user_id: message.sender_id });
  return out.reverse();
}
