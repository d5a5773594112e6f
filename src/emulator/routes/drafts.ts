/**
 * Drafts: `GET /drafts`, `POST /drafts`, `PATCH /drafts/{id}` and `DELETE /drafts/{id}`
 * (https://zulip.com/api/get-drafts and neighbours), with the `drafts` add/update/remove events
 * (https://zulip.com/api/get-events#drafts-add) and the `drafts` register state.
 *
 * As in Zulip (zerver/actions/drafts.py): every endpoint refuses to work while the user's
 * `enable_drafts_synchronization` is off; a draft object has exactly the keys type, to, topic,
 * content and optionally timestamp (an `id` is refused); a batch is validated as a whole before
 * any draft is stored; a `private` draft without recipients becomes unaddressed; the topic of a
 * non-channel draft is dropped. Deliberately stricter than Zulip: a topic with a
 * null byte is refused whatever the draft type.
 */
import type { DraftType } from '../../zulip/model/drafts.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import type { Draft, Store, User } from '../store.js';
import { checkDirectRecipients, directRecipientIds, normalizeContent, truncateTopic } from './scheduled-messages.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const DRAFT_TYPES: readonly string[] = ['', 'stream', 'private'] satisfies DraftType[];
const DRAFT_KEYS = new Set(['type', 'to', 'topic', 'content', 'timestamp']);

export function serializeDraft(d: Draft): Draft {
  return { id: d.id, type: d.type, to: [...d.to], topic: d.topic, content: d.content, timestamp: d.timestamp };
}

export function draftsSyncEnabled(user: User): boolean {
  return user.settings.enable_drafts_synchronization !== false;
}

/** The user's drafts, most recently edited first (as the register response and the docs order them). */
export function draftsOf(store: Store, userId: number): Draft[] {
  return [...(store.drafts.get(userId)?.values() ?? [])]
    .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
    .map(serializeDraft);
}

function requireSync(ctx: RouteContext): void {
  if (!draftsSyncEnabled(ctx.user)) throw badRequest('User has disabled synchronizing drafts.');
}

function draftNotFound(): ApiError {
  return new ApiError('BAD_REQUEST', 'Draft does not exist', 404);
}

/** A draft object whose shape has been checked (Zulip's DraftData, extra keys forbidden). */
interface DraftData {
  type: Draft['type'];
  to: number[];
  topic: string;
  content: string;
  timestamp: number | undefined;
}

/** Shape checks, done for the whole request before anything else. */
function parseDraft(value: unknown, name: string): DraftData {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${name} is not a dict`);
  const d = value as Record<string, unknown>;
  for (const key of Object.keys(d)) {
    if (key === 'id') throw badRequest(`${name}["id"] must not be sent: the server assigns draft IDs`);
    if (!DRAFT_KEYS.has(key)) throw badRequest(`${name} has an unexpected key: ${key}`);
  }
  for (const key of ['type', 'to', 'topic', 'content']) {
    if (!(key in d)) throw badRequest(`${key} key is missing from ${name}`);
  }
  if (typeof d.type !== 'string' || !DRAFT_TYPES.includes(d.type)) throw badRequest(`Invalid ${name}["type"]`);
  if (!Array.isArray(d.to) || d.to.some((x) => !Number.isSafeInteger(x))) {
    throw badRequest(`${name}["to"] is not a list of integers`);
  }
  if (typeof d.topic !== 'string') throw badRequest(`${name}["topic"] is not a string`);
  if (typeof d.content !== 'string') throw badRequest(`${name}["content"] is not a string`);
  if (d.content.trim() === '') throw badRequest(`${name}["content"] cannot be blank`);
  const ts = d.timestamp;
  if (ts !== undefined && ts !== null && (typeof ts !== 'number' || !Number.isFinite(ts))) {
    throw badRequest(`${name}["timestamp"] is not a number`);
  }
  return {
    type: d.type as Draft['type'],
    to: d.to as number[],
    topic: d.topic,
    content: d.content,
    timestamp: typeof ts === 'number' ? ts : undefined,
  };
}

/** Zulip's further_validated_draft_dict: what the draft says, checked against the organization. */
function checkDraft(ctx: RouteContext, d: DraftData): Omit<Draft, 'id'> {
  const content = normalizeContent(d.content, ctx.settings.maxMessageLength);
  const timestamp = d.timestamp ?? ctx.nowSeconds();
  if (timestamp < 0) throw badRequest('Timestamp must not be negative.');
  if (d.topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
  const base = { content, timestamp: Math.floor(timestamp) };
  if (d.type === 'stream') {
    const topic = truncateTopic(d.topic, ctx.settings.maxTopicLength);
    if (d.to.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    const channel = ctx.store.channels.get(d.to[0]!);
    if (!channel || channel.is_archived || !ctx.store.canAccessChannelContent(ctx.user, channel)) {
      throw badRequest('Invalid channel ID');
    }
    return { ...base, type: 'stream', to: [channel.stream_id], topic };
  }
  if (d.type === 'private' && d.to.length > 0) {
    checkDirectRecipients(ctx.store, d.to);
    return { ...base, type: 'private', to: directRecipientIds(d.to, ctx.user.user_id), topic: '' };
  }
  return { ...base, type: '', to: [], topic: '' };
}

function userDrafts(store: Store, userId: number): Map<number, Draft> {
  let drafts = store.drafts.get(userId);
  if (!drafts) store.drafts.set(userId, (drafts = new Map()));
  return drafts;
}

function accessDraft(ctx: RouteContext): Draft {
  const draft = ctx.store.drafts.get(ctx.user.user_id)?.get(ctx.pathInt('draft_id'));
  if (!draft) throw draftNotFound();
  return draft;
}

function notify(ctx: RouteContext, event: Record<string, unknown>): void {
  ctx.events.notify([ctx.user.user_id], { type: 'drafts', ...event });
}

/** https://zulip.com/api/create-drafts */
function create(ctx: RouteContext): Record<string, unknown> {
  requireSync(ctx);
  const raw = ctx.params.optJson('drafts') ?? [];
  if (!Array.isArray(raw)) throw badRequest('drafts is not a list');
  // All or nothing: every draft is checked before the first one is stored.
  const parsed = raw.map((d, i) => parseDraft(d, `drafts[${i}]`));
  const checked = parsed.map((d) => checkDraft(ctx, d));
  const drafts = userDrafts(ctx.store, ctx.user.user_id);
  const created = checked.map((d) => {
    const draft: Draft = { id: ctx.store.nextId('draft'), ...d };
    drafts.set(draft.id, draft);
    return draft;
  });
  notify(ctx, { op: 'add', drafts: created.map(serializeDraft) });
  return { ids: created.map((d) => d.id) };
}

/** https://zulip.com/api/edit-draft */
function edit(ctx: RouteContext): Record<string, unknown> {
  requireSync(ctx);
  const parsed = parseDraft(ctx.params.json('draft'), 'draft');
  const draft = accessDraft(ctx);
  Object.assign(draft, checkDraft(ctx, parsed));
  notify(ctx, { op: 'update', draft: serializeDraft(draft) });
  return {};
}

/** https://zulip.com/api/delete-draft */
function remove(ctx: RouteContext): Record<string, unknown> {
  requireSync(ctx);
  const draft = accessDraft(ctx);
  ctx.store.drafts.get(ctx.user.user_id)!.delete(draft.id);
  notify(ctx, { op: 'remove', draft_id: draft.id });
  return {};
}

export const routes: Route[] = [
  {
    operation: ops.getDrafts,
    handler: (ctx) => {
      requireSync(ctx);
      const drafts = draftsOf(ctx.store, ctx.user.user_id);
      return { count: drafts.length, drafts };
    },
  },
  { operation: ops.createDrafts, handler: create },
  { operation: ops.editDraft, handler: edit },
  { operation: ops.deleteDraft, handler: remove },
];

/** The `drafts` fetch type of `POST /register`: empty while synchronization is off. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  if (!ctx.wants('drafts')) return {};
  return { drafts: draftsSyncEnabled(ctx.user) ? draftsOf(ctx.store, ctx.user.user_id) : [] };
}
