/**
 * The `messages` connection: Relay arguments mapped onto one window of Zulip's anchor API, and the
 * window cut back into edges with exact page info. One `GET /messages` per page.
 * https://zulip.com/api/get-messages
 */
import type { Anchor, GetMessagesResult, Message, NarrowTerm } from '../../../zulip/model/messages.js';
import { getMessages } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { anchorFrom, decodeCursor, encodeCursor, type AnchorShape } from './cursor.js';
import { MessageRef } from './message.js';
import { narrowFor, type NarrowShape } from './narrow.js';

/**
 * The largest page the gateway asks for. Zulip recommends at most 1000 messages per request and
 * refuses more than 5000 (https://zulip.com/api/get-messages); a page costs at most `first + last + 2` messages
 * upstream (one extra on each side tells whether more pages exist).
 */
export const MAX_PAGE_SIZE = 1000;

export interface MessagePage {
  result: GetMessagesResult;
  /** Whether the page may include the anchor (false past a cursor or with `includeAnchor: false`). */
  anchorIncluded: boolean;
  edges: Message[];
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

const PageInfoRef = builder.objectRef<{ edges: Message[]; hasPreviousPage: boolean; hasNextPage: boolean }>('PageInfo').implement({
  description: 'Relay pagination state of a connection.',
  fields: (t) => ({
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description: 'Whether older matching messages exist before the first edge.',
    }),
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether newer matching messages exist after the last edge.' }),
    startCursor: t.string({
      nullable: true,
      description: 'The cursor of the first edge; null when there are no edges.',
      resolve: (p) => (p.edges.length > 0 ? encodeCursor(p.edges[0]!.id) : null),
    }),
    endCursor: t.string({
      nullable: true,
      description: 'The cursor of the last edge; null when there are no edges.',
      resolve: (p) => (p.edges.length > 0 ? encodeCursor(p.edges[p.edges.length - 1]!.id) : null),
    }),
  }),
});

const MessageEdgeRef = builder.objectRef<Message>('MessageEdge').implement({
  description: 'A message in a connection, with its cursor.',
  fields: (t) => ({
    cursor: t.string({ description: 'Opaque; pass as `after` or `before` to page on.', resolve: (m) => encodeCursor(m.id) }),
    node: t.field({ type: MessageRef, description: 'The message.', resolve: (m) => m }),
  }),
});

export const MessageConnectionRef = builder.objectRef<MessagePage>('MessageConnection').implement({
  description: 'A page of messages in ID order (oldest first), with Relay paging and Zulip\u2019s window metadata.',
  fields: (t) => ({
    edges: t.field({ type: [MessageEdgeRef], description: 'The messages with their cursors.', resolve: (p) => p.edges }),
    nodes: t.field({ type: [MessageRef], description: 'The messages, without cursors.', resolve: (p) => p.edges }),
    pageInfo: t.field({ type: PageInfoRef, description: 'Whether more pages exist, and their cursors.', resolve: (p) => p }),
    anchor: t.field({
      type: 'Long',
      nullable: true,
      description:
        'The anchor the server used (computed for named anchors; 10000000000000000 stands for "newest").',
      resolve: (p) => p.result.anchor ?? null,
    }),
    foundAnchor: t.boolean({
      description: 'Whether the anchor message exists, matches the narrow and was asked for.',
      // The anchor is always fetched (see fetchMessagePage), so the server's answer counts only
      // when the page asked for it.
      resolve: (p) => p.anchorIncluded && p.result.found_anchor,
    }),
    foundNewest: t.boolean({
      description: 'The server promises the window reached the newest matching message.',
      resolve: (p) => p.result.found_newest,
    }),
    foundOldest: t.boolean({
      description: 'The server promises the window reached the oldest matching message.',
      resolve: (p) => p.result.found_oldest,
    }),
    historyLimited: t.boolean({
      description: 'Whether older history exists that the organization\u2019s plan does not show.',
      resolve: (p) => p.result.history_limited,
    }),
  }),
});

export interface PageArgs {
  anchor?: AnchorShape | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  includeAnchor?: boolean | null;
}

/** The upstream window for Relay arguments; see {@link fetchMessagePage}. */
interface MessageWindow {
  anchor: Anchor;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  /** Edges wanted before the anchor / from the anchor on. */
  lastN: number;
  firstN: number;
  /** Which side the anchor message counts on. */
  anchorSide: 'before' | 'after';
}

function pageSize(value: number | null | undefined, argument: string): number | undefined {
  if (value == null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_SIZE) {
    throw badInput(
      `\`${argument}\` must be between 0 and ${MAX_PAGE_SIZE} (the gateway's page-size cap; the chat server allows ` +
        'at most 5000 messages per request).',
      { argument, maxPageSize: MAX_PAGE_SIZE },
    );
  }
  return value;
}

/**
 * Maps Relay arguments onto one anchor window:
 * - `first: n, after: c` → anchor c (excluded), n messages after it;
 * - `last: n, before: c` → anchor c (excluded), n messages before it;
 * - without a cursor: the anchor (default OLDEST with `first`, NEWEST with `last`; required with both),
 *   `last` messages before it and `first` from it on (the anchor message counts on the `first` side,
 *   or on the `last` side when only `last` is given).
 * One extra message is asked for on each side, so hasPreviousPage/hasNextPage are exact.
 */
function messageWindow(args: PageArgs): MessageWindow {
  const first = pageSize(args.first, 'first');
  const last = pageSize(args.last, 'last');
  if (first === undefined && last === undefined) throw badInput('Pass `first` or `last` (at most 1000).');
  if (args.after != null && args.before != null) throw badInput('Pass `after` or `before`, not both.');
  const cursor = args.after ?? args.before;
  if (cursor != null && args.anchor != null) throw badInput('Pass a cursor (`after`/`before`) or `anchor`, not both.');
  let anchor: Anchor;
  let includeAnchor = args.includeAnchor ?? true;
  if (args.after != null) {
    if (last !== undefined) throw badInput('`after` pages forward: use it with `first`, not `last`.');
    anchor = decodeCursor(args.after, 'after');
    includeAnchor = false;
  } else if (args.before != null) {
    if (first !== undefined) throw badInput('`before` pages backward: use it with `last`, not `first`.');
    anchor = decodeCursor(args.before, 'before');
    includeAnchor = false;
  } else if (args.anchor != null) {
    anchor = anchorFrom(args.anchor, 'anchor');
  } else {
    if (first !== undefined && last !== undefined) throw badInput('With both `first` and `last`, pass the `anchor` they surround.');
    anchor = first !== undefined ? 'oldest' : 'newest';
  }
  const firstN = first ?? 0;
  const lastN = last ?? 0;
  return {
    anchor,
    includeAnchor,
    numBefore: lastN + 1,
    numAfter: firstN + 1,
    firstN,
    lastN,
    anchorSide: first !== undefined ? 'after' : 'before',
  };
}

/** The anchor ID the server used, from the response or (for old servers) the request. */
function anchorIdOf(result: GetMessagesResult, anchor: Anchor): number {
  if (typeof result.anchor === 'number') return result.anchor;
  if (typeof anchor === 'number') return anchor;
  return anchor === 'oldest' ? 0 : Number.MAX_SAFE_INTEGER;
}

/** Cuts a fetched window into the page's edges and exact page info. */
function pageFrom(result: GetMessagesResult, window: MessageWindow): MessagePage {
  const anchorId = anchorIdOf(result, window.anchor);
  const before: Message[] = [];
  const at: Message[] = [];
  const after: Message[] = [];
  for (const message of result.messages) {
    if (message.id < anchorId) before.push(message);
    else if (message.id > anchorId) after.push(message);
    // The anchor is always fetched (see fetchMessagePage); it is an edge only when included.
    else if (window.includeAnchor) at.push(message);
  }
  const beforeSide = window.anchorSide === 'before' ? [...before, ...at] : before;
  const afterSide = window.anchorSide === 'after' ? [...at, ...after] : after;
  const edges = [...beforeSide.slice(beforeSide.length - Math.min(window.lastN, beforeSide.length)), ...afterSide.slice(0, window.firstN)];
  return {
    result,
    anchorIncluded: window.includeAnchor,
    edges,
    hasPreviousPage: beforeSide.length > window.lastN,
    hasNextPage: afterSide.length > window.firstN,
  };
}

export interface FetchOptions {
  narrow?: NarrowShape | null;
  applyMarkdown?: boolean | null;
  clientGravatar?: boolean | null;
  allowEmptyTopicName?: boolean | null;
}

/**
 * One `GET /messages` for a Relay page, or none when the credential's message cache holds the
 * window (directory/messages/cache.ts: kept current by the credential's events).
 */
export async function fetchMessagePage(ctx: Context, args: PageArgs & FetchOptions): Promise<MessagePage> {
  const window = messageWindow(args);
  const narrow = await narrowFor(ctx, args.narrow);
  const cached = ctx.server.directories?.cachedMessages(ctx.connection, {
    narrow: args.narrow,
    anchor: window.anchor,
    numBefore: window.numBefore,
    numAfter: window.numAfter,
    applyMarkdown: args.applyMarkdown ?? true,
    clientGravatar: args.clientGravatar ?? false,
    allowEmptyTopicName: args.allowEmptyTopicName ?? false,
  });
  if (cached?.hit) return pageFrom(cached.hit, window);
  let result: GetMessagesResult;
  try {
    result = await fetchWindow(ctx, window, narrow, args);
  } catch (error) {
    cached?.abandon();
    throw error;
  }
  cached?.store(result);
  return pageFrom(result, window);
}

function fetchWindow(ctx: Context, window: MessageWindow, narrow: NarrowTerm[], args: FetchOptions): Promise<GetMessagesResult> {
  return getMessages(ctx.connection, {
    anchor: window.anchor,
    // Always true upstream: Zulip refuses include_anchor=false unless one side is empty ("The
    // anchor can only be excluded at an end of the range"), and the window always asks for one
    // message more on each side. pageFrom drops the anchor when the page excludes it.
    includeAnchor: true,
    numBefore: window.numBefore,
    numAfter: window.numAfter,
    narrow,
    applyMarkdown: args.applyMarkdown ?? true,
    clientGravatar: args.clientGravatar ?? false,
    allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
  });
}

/** Whether a message fetched with these options looks exactly like one `ctx.loaders.messages` returns. */
export function isLoaderShaped(args: FetchOptions): boolean {
  return (args.applyMarkdown ?? true) && !(args.clientGravatar ?? false) && !args.allowEmptyTopicName;
}
