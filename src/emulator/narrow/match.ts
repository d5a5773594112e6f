/** Matching messages against a narrow: one compiled predicate per narrow (event queues use it too). */
import type { Memo } from '../memo.js';
import type { Message, Store, User } from '../store.js';
import { type NarrowTerm, RESOLVED_TOPIC_PREFIX } from './parse.js';
import { userIdOf, userIdsOf, channelOf, messageIdOf, topicOperand } from './operands.js';

// ---- matching ----------------------------------------------------------------------------------

export type MessagePredicate = (m: Message) => boolean;

/** Lowercased `topic + content`, memoised per message (on the store) until either changes. */
function searchText(memo: Memo, m: Message): string {
  const cached = memo.searchText.get(m);
  if (cached && cached.topic === m.topic && cached.content === m.content) return cached.text;
  const text = `${m.topic}\n${m.content}`.toLowerCase();
  memo.searchText.set(m, { topic: m.topic, content: m.content, text });
  return text;
}

/** Search keywords: whitespace-separated words, or "quoted phrases". */
export function searchKeywords(narrow: NarrowTerm[]): string[] {
  const words: string[] = [];
  for (const term of narrow) {
    if (term.operator !== 'search' || term.negated || typeof term.operand !== 'string') continue;
    for (const match of term.operand.toLowerCase().matchAll(/"([^"]+)"|(\S+)/g)) {
      const word = (match[1] ?? match[2] ?? '').trim();
      if (word) words.push(word);
    }
  }
  return words;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A keyword matches at the start of a word (a cheap stand-in for Zulip's stemmed full-text search:
 * `deploy` finds "deployed" but not "redeploy"); the match extends to the end of that word.
 */
export function keywordPattern(memo: Memo, word: string): RegExp {
  const patterns = memo.keywordPatterns;
  let re = patterns.get(word);
  if (!re) {
    // Unicode property classes are costly to compile: keep the latest few hundred.
    if (patterns.size >= 256) patterns.delete(patterns.keys().next().value!);
    re = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}[\\p{L}\\p{N}_]*`, 'giu');
    patterns.set(word, re);
  }
  re.lastIndex = 0;
  return re;
}

function compileSearch(memo: Memo, operand: string): MessagePredicate {
  const patterns = searchKeywords([{ operator: 'search', operand, negated: false }]).map((word) => ({ word, re: keywordPattern(memo, word) }));
  return (m) => {
    const text = searchText(memo, m);
    // includes() first: most messages do not contain the word at all, and that test is cheap.
    return patterns.every(({ word, re }) => {
      if (!text.includes(word)) return false;
      re.lastIndex = 0;
      return re.test(text);
    });
  };
}

export function compileIs(store: Store, user: User, operand: unknown): MessagePredicate {
  const uid = user.user_id;
  switch (operand) {
    case 'dm':
    case 'private':
      return (m) => m.type === 'private';
    case 'unread':
      return (m) => !store.hasFlag(uid, m.id, 'read');
    case 'starred':
      return (m) => store.hasFlag(uid, m.id, 'starred');
    case 'mentioned':
    case 'alerted':
      return (m) =>
        ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word'].some((f) =>
          store.hasFlag(uid, m.id, f),
        );
    case 'resolved':
      return (m) => m.type === 'stream' && m.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
    case 'muted':
      return (m) => {
        if (m.type !== 'stream') return false;
        const policy = store.userTopics.get(uid)?.get(store.userTopicKey(m.stream_id!, m.topic))?.visibility_policy;
        if (operand === 'followed') return policy === 3;
        return policy === 1 || (store.subscription(m.stream_id!, uid)?.is_muted === true && policy !== 2 && policy !== 3);
      };
    default:
      // Zulip's event-queue matcher lets an unknown `is:` operand match everything; GET /messages
      // rejects it in validateNarrow before matching.
      return () => true;
  }
}

export function compileHas(operand: unknown): MessagePredicate {
  switch (operand) {
    case 'link':
      return (m) => /<a href=/.test(m.rendered_content);
    case 'image':
      return (m) => /<img /.test(m.rendered_content);
    case 'attachment':
      return (m) => m.content.includes('/user_uploads/');
    case 'reaction':
      return (m) => m.reactions.length > 0;
    default:
      return () => false;
  }
}

export function compileTerm(store: Store, user: User, term: NarrowTerm): MessagePredicate {
  const { operator, operand } = term;
  switch (operator) {
    case 'channel': {
      const id = channelOf(store, operand)?.stream_id;
      return (m) => m.type === 'stream' && m.stream_id === id;
    }
    case 'channels': {
      const flag = operand === 'web-public' ? 'is_web_public' : 'public';
      return (m) => {
        if (m.type !== 'stream') return false;
        const c = store.channels.get(m.stream_id!);
        return c !== undefined && (flag === 'public' ? !c.invite_only : c.is_web_public);
      };
    }
    case 'topic': {
      if (typeof operand !== 'string') return () => false;
      const wanted = topicOperand(store, operand).toLowerCase();
      return (m) => m.type === 'stream' && m.topic.toLowerCase() === wanted;
    }
    case 'sender': {
      const id = userIdOf(store, operand);
      return (m) => m.sender_id === id;
    }
    case 'dm': {
      const ids = userIdsOf(store, operand);
      if (!ids) return () => false;
      const wanted = new Set([...ids, user.user_id]);
      return (m) => m.type === 'private' && m.dm_user_ids!.length === wanted.size && m.dm_user_ids!.every((id) => wanted.has(id));
    }
    case 'dm-including': {
      const id = userIdOf(store, operand);
      return (m) => m.type === 'private' && id !== undefined && m.dm_user_ids!.includes(id) && m.dm_user_ids!.includes(user.user_id);
    }
    case 'is':
      return compileIs(store, user, operand);
    case 'search':
      return typeof operand === 'string' ? compileSearch(store.memo, operand) : () => false;
    case 'id': {
      const id = messageIdOf(operand);
      return (m) => m.id === id;
    }
    case 'has':
      return compileHas(operand);
    default:
      // near and with only steer the anchor / the conversation (see resolveWith).
      return () => true;
  }
}

/** One predicate for the whole narrow (operands resolved once, not per message). */
export function compileNarrow(store: Store, user: User, narrow: NarrowTerm[]): MessagePredicate {
  const predicates = narrow.map((term) => {
    const p = compileTerm(store, user, term);
    return term.negated ? (m: Message) => !p(m) : p;
  });
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0]!;
  return (m) => predicates.every((p) => p(m));
}

/** Whether the message matches every term (negated terms must not match). Never throws. */
export function matchesNarrow(store: Store, user: User, m: Message, narrow: NarrowTerm[]): boolean {
  return compileNarrow(store, user, narrow)(m);
}

/** The channel a narrow is limited to, if any. */
export function narrowChannelId(store: Store, narrow: NarrowTerm[]): number | undefined {
  const term = narrow.find((t) => t.operator === 'channel' && !t.negated);
  return term ? channelOf(store, term.operand)?.stream_id : undefined;
}
