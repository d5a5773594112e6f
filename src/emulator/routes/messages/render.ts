/**
 * `POST /messages/render` (https://zulip.com/api/render-message): the HTML a message with this
 * content would get, with the emulator's Markdown renderer. As Zulip's render_message_backend, the
 * content is rendered as given (no normalization), and nothing is stored or sent.
 */
import type { RouteContext } from '../../context.js';
import { renderMarkdown } from '../../markdown.js';

export function renderMessage(ctx: RouteContext): Record<string, unknown> {
  return { rendered: renderMarkdown(ctx.store, ctx.params.str('content')).html };
}
