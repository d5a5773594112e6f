/**
 * Where a message window starts: opaque Relay cursors (wrapping a message ID, so a cursor is also
 * a valid anchor) and the `MessageAnchorInput` of explicit anchors.
 * https://zulip.com/api/get-messages#parameter-anchor
 */
import type { Anchor } from '../../../zulip/model/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { NamedAnchorEnum } from './enums.js';

const CURSOR_PREFIX = 'message:';

/** Opaque to clients; wraps the message ID so a cursor is also a valid anchor. */
export function encodeCursor(messageId: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${messageId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, argument: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!/^message:\d+$/.test(text) || !Number.isSafeInteger(id)) {
    throw badInput(`\`${argument}\` is not a cursor returned by this connection.`, { argument });
  }
  return id;
}

export interface AnchorShape {
  messageId?: number | null;
  named?: 'newest' | 'oldest' | 'first_unread' | null;
}

export const MessageAnchorInput = builder.inputRef<AnchorShape>('MessageAnchorInput').implement({
  description: 'Where a message window starts: a message ID, or an anchor the server computes. Give exactly one.',
  fields: (t) => ({
    messageId: t.field({
      type: 'Long',
      required: false,
      description: 'A message ID; it need not match the narrow, or exist (the window is placed around it).',
    }),
    named: t.field({ type: NamedAnchorEnum, required: false, description: 'A computed anchor.' }),
  }),
});

export function anchorFrom(input: AnchorShape, argument: string): Anchor {
  const hasId = input.messageId != null;
  if (hasId === (input.named != null)) throw badInput(`\`${argument}\`: give exactly one of messageId and named.`, { argument });
  return hasId ? input.messageId! : input.named!;
}
