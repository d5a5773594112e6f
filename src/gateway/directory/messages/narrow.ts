/**
 * The narrows the message cache keeps windows of, and the gateway's own exact matcher for them
 * (https://zulip.com/api/construct-narrow). A window is kept current by appending the new messages
 * of its credential's queue that match its narrow, so the cache accepts only narrows whose match it
 * can decide from a `message` event alone, exactly as the server decides it for `GET /messages`:
 *
 * - no narrow: the caller's personal history, i.e. the messages they received. The credential's
 *   queue (never `all_public_streams`) is sent exactly those; a `historical` flag would say otherwise;
 * - `channelId` (with `topic`, `senderId`): only while the caller is subscribed, so that every new
 *   message of the channel reaches the queue; `topic` compares case-insensitively as Zulip's SQL
 *   `upper(subject) = upper(operand)` does. The empty topic and its display name are refused (the
 *   server maps one to the other);
 * - `senderId`, `dmUserIds` (the conversation with exactly these users), `dmIncluding` and `is: [DM]`.
 *
 * Everything else (`channelName`, `channels`, `has`, `search`, `id`, other `is` states, `not`) is
 * refused: its match depends on state a message event does not carry.
 */

/** The narrow as the schema's `NarrowInput` gives it (structurally; the directory never imports the schema). */
export interface NarrowFields {
  channelId?: number | null;
  channelName?: string | null;
  channels?: string | null;
  topic?: string | null;
  senderId?: number | null;
  dmUserIds?: readonly number[] | null;
  dmIncluding?: number | null;
  is?: readonly string[] | null;
  has?: readonly string[] | null;
  search?: string | null;
  id?: number | null;
  not?: NarrowFields | null;
}

/** A narrow the cache matches exactly; every field given must hold. */
export interface ExactNarrow {
  channelId?: number;
  /** Upper-cased, as the server compares topics. */
  topic?: string;
  senderId?: number;
  /** Every participant, the caller included, ascending. */
  dmParticipants?: readonly number[];
  dmIncluding?: number;
  dm?: true;
}

/** A message as the matcher reads it, from `GET /messages` or a `message` event. */
export interface MatchedMessage {
  type: string;
  sender_id: number;
  stream_id?: number;
  subject: string;
  display_recipient: string | readonly { id: number }[];
}

/**
 * The exact narrow for `fields`, or undefined when the cache cannot match it exactly.
 * @param emptyTopicName the organization's display name of the empty topic (refused as an operand)
 */
export function exactNarrow(fields: NarrowFields | null | undefined, selfId: number, emptyTopicName: unknown): ExactNarrow | undefined {
  if (!fields) return {};
  const refused =
    fields.channelName != null ||
    fields.channels != null ||
    fields.search != null ||
    fields.id != null ||
    fields.not != null ||
    (fields.has != null && fields.has.length > 0) ||
    (fields.is ?? []).some((state) => state !== 'dm');
  if (refused) return undefined;
  const narrow: ExactNarrow = {};
  if (fields.channelId != null) narrow.channelId = fields.channelId;
  if (fields.topic != null) {
    // A topic without a channel matches across channels; the empty topic reads as its display name.
    if (fields.channelId == null || fields.topic === '' || fields.topic === emptyTopicName) return undefined;
    narrow.topic = fields.topic.toUpperCase();
  }
  if (fields.senderId != null) narrow.senderId = fields.senderId;
  if (fields.dmUserIds != null) {
    if (fields.dmUserIds.length === 0) return undefined;
    narrow.dmParticipants = [...new Set([...fields.dmUserIds, selfId])].sort((a, b) => a - b);
  }
  if (fields.dmIncluding != null) narrow.dmIncluding = fields.dmIncluding;
  if ((fields.is ?? []).includes('dm')) narrow.dm = true;
  return narrow;
}

/** A stable key of the narrow (windows of one credential are kept by it). */
export function narrowKey(narrow: ExactNarrow): string {
  return JSON.stringify([narrow.channelId, narrow.topic, narrow.senderId, narrow.dmParticipants, narrow.dmIncluding, narrow.dm]);
}

function participants(message: MatchedMessage): number[] | undefined {
  return Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id) : undefined;
}

/** Whether `message` (one the caller received) matches `narrow`, as the server would decide it. */
export function matchesExactly(narrow: ExactNarrow, message: MatchedMessage): boolean {
  if (narrow.senderId !== undefined && message.sender_id !== narrow.senderId) return false;
  if (narrow.channelId !== undefined && (message.type !== 'stream' || message.stream_id !== narrow.channelId)) return false;
  if (narrow.topic !== undefined && message.subject.toUpperCase() !== narrow.topic) return false;
  const dm = message.type === 'private';
  if (narrow.dm && !dm) return false;
  if (narrow.dmParticipants !== undefined) {
    const ids = participants(message);
    if (!dm || !ids) return false;
    const set = new Set(ids);
    if (set.size !== narrow.dmParticipants.length || !narrow.dmParticipants.every((id) => set.has(id))) return false;
  }
  if (narrow.dmIncluding !== undefined && !(dm && (participants(message) ?? []).includes(narrow.dmIncluding))) return false;
  return true;
}
