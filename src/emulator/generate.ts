/**
 * A large, realistic organization for load tests and benchmarks: by default 2,000 users,
 * 200 channels and 200,000 messages, built fast enough for a benchmark's setup.
 *
 * Deterministic: every choice comes from a seeded PRNG (mulberry32), so the same options give the
 * same store. Realistic where it matters for the message endpoints: channel sizes follow a power
 * law (the first channel has everyone, the tail a handful), busier channels get more messages,
 * topics within a channel follow a power law too, about one message in eight is a direct message,
 * most history is read with a few recent unreads per conversation, and a small share of messages
 * carry Markdown, mentions, reactions or edits.
 *
 * Speed: plain sentences take markdown.ts's fast path, and messages are built directly instead of
 * through `insertMessage` (which would mark every message unread for every subscriber).
 */
import { addChannel, addUser, applyMentionFlags, createStore, subscribe } from './factory.js';
import { renderMarkdown } from './markdown.js';
import { RESOLVED_TOPIC_PREFIX } from './narrow/index.js';
import { Role, type Message, type Store, type User } from './store.js';

export interface LargeOrganizationOptions {
  /** @default 2000 */
  users?: number;
  /** @default 200 */
  channels?: number;
  /** @default 200_000 */
  messages?: number;
  /** PRNG seed: the same seed (and nowMs) gives the same organization. @default 1 */
  seed?: number;
  /** "Now": the newest message is a minute older. @default Date.now() */
  nowMs?: number;
}

/** mulberry32: small, fast and good enough for test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Luis', 'Mina', 'Noor', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tara', 'Uma', 'Victor', 'Wen', 'Ximena', 'Yusuf', 'Zoe'];
const LAST = ['Abara', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ito', 'Jensen', 'Kowalski', 'Lopez', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quist', 'Rossi', 'Singh', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Xu', 'Yilmaz', 'Zhang'];
const AREAS = ['design', 'backend', 'frontend', 'mobile', 'infra', 'security', 'data', 'support', 'sales', 'marketing', 'legal', 'finance', 'hiring', 'research', 'docs', 'qa', 'release', 'growth', 'billing', 'search'];
const KINDS = ['team', 'help', 'standup', 'alerts', 'ideas', 'reviews', 'planning', 'social', 'news', 'ops'];
const WORDS = (
  'the a we should deploy release review fix bug test build plan meeting today tomorrow later after before ' +
  'coffee lunch update status question answer idea design api server client error timeout cache query index ' +
  'migration schema draft merge branch commit rollback incident customer ticket feature flag metrics dashboard ' +
  'latency budget roadmap sprint demo retro docs onboarding laptop office remote travel weekend thanks please ' +
  'agree disagree maybe soon done blocked waiting ready shipping shipped broken flaky green red check ping'
).split(' ');
const TOPIC_WORDS = ['weekly sync', 'outage', 'launch', 'hiring', 'bug bash', 'offsite', 'roadmap', 'on call', 'metrics', 'feedback', 'questions', 'release notes', 'design review', 'budget', 'migration', 'incident', 'ideas', 'help', 'planning', 'random'];
const REACTION_EMOJI: [string, string][] = [
  ['+1', '1f44d'],
  ['tada', '1f389'],
  ['heart', '2764'],
  ['eyes', '1f440'],
  ['rocket', '1f680'],
  ['joy', '1f602'],
];
const DOMAIN = 'large.example.com';

/** Builds the organization described in the module comment. */
export function generateLargeOrganization(options: LargeOrganizationOptions = {}): Store {
  const nUsers = Math.max(2, options.users ?? 2000);
  const nChannels = Math.max(1, options.channels ?? 200);
  const nMessages = Math.max(0, options.messages ?? 200_000);
  const nowMs = options.nowMs ?? Date.now();
  const rand = seededRandom(options.seed ?? 1);
  const int = (n: number) => Math.floor(rand() * n);

  const store = createStore(nowMs, { name: 'Large Org', string_id: 'large', host: DOMAIN, description: 'A generated organization.' });

  // ---- users: one owner, a few administrators and moderators, 2% guests, 1% bots.
  const users: User[] = [];
  for (let i = 0; i < nUsers; i++) {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
    const isBot = i > 20 && i % 100 === 99;
    const role = i === 0 ? Role.OWNER : i < 5 ? Role.ADMINISTRATOR : i < 15 ? Role.MODERATOR : i % 50 === 49 ? Role.GUEST : Role.MEMBER;
    const r = rand();
    users.push(
      addUser(
        store,
        {
          full_name: isBot ? `${first} Bot ${i}` : `${first} ${last} ${i}`,
          delivery_email: isBot ? `bot${i}-bot@${DOMAIN}` : `${first}.${last}.${i}@${DOMAIN}`.toLowerCase(),
          role: isBot ? Role.MEMBER : role,
          is_bot: isBot,
          bot_type: isBot ? 1 : null,
          bot_owner_id: isBot ? users[i - 1]!.user_id : null,
          email_address_visibility: r < 0.8 ? 1 : r < 0.95 ? 2 : 3,
          avatar_source: rand() < 0.3 ? 'U' : 'G',
        },
        nowMs,
      ),
    );
  }
  const humans = users.filter((u) => !u.is_bot);
  const staff = humans.filter((u) => u.role !== Role.GUEST);
  const guests = humans.filter((u) => u.role === Role.GUEST);

  // ---- channels, with power-law subscriber counts.
  const subscribers: number[][] = [];
  const admins = store.systemGroupId('role:administrators');
  for (let c = 0; c < nChannels; c++) {
    const name = c === 0 ? 'general' : c === 1 ? 'announcements' : `${AREAS[c % AREAS.length]}-${KINDS[Math.floor(c / AREAS.length) % KINDS.length]}${c >= AREAS.length * KINDS.length ? `-${c}` : ''}`;
    const isPrivate = c >= 10 && rand() < 0.15;
    const channel = addChannel(
      store,
      {
        name,
        description: `Channel for **${name}**`,
        creator_id: users[int(Math.min(users.length, 15))]!.user_id,
        invite_only: isPrivate,
        history_public_to_subscribers: !isPrivate || rand() < 0.5,
        is_web_public: c === 1 || (!isPrivate && c >= 10 && rand() < 0.02),
        can_send_message_group: c === 1 ? admins : store.systemGroupId('role:everyone'),
      },
      nowMs,
    );
    let fraction = Math.min(1, 1.1 / Math.pow(c + 1, 0.85));
    if (isPrivate) fraction *= 0.3;
    const count = c === 0 ? users.length : Math.max(3, Math.round(fraction * humans.length));
    // Guests join a fifth of the channels; the pool is members plus those guests, not copied per channel.
    const pool = c === 0 ? [users] : [staff, guests.filter(() => rand() < 0.2)];
    const chosen = sample(pool, Math.min(count, pool[0]!.length + (pool[1]?.length ?? 0)), rand);
    for (const u of chosen) subscribe(store, channel.stream_id, u.user_id, { subscribed_after_message_id: 0, is_muted: rand() < 0.03 });
    subscribers.push(chosen.map((u) => u.user_id));
  }
  const channels = [...store.channels.values()];
  if (channels.length > 20) channels[channels.length - 1]!.is_archived = true;

  // Busier channels get more traffic: weight ∝ subscribers^0.8 (announcements stays quiet).
  const weights = channels.map((_, c) => (c === 1 ? 1 : Math.pow(subscribers[c]!.length, 0.8)));
  const cumulative = prefixSums(weights);
  const topicsOf = channels.map((_, c) => {
    const n = 3 + int(30);
    return Array.from({ length: n }, (_, k) => {
      if (k === n - 1 && c % 7 === 0) return '';
      const base = `${TOPIC_WORDS[(c + k) % TOPIC_WORDS.length]}${k >= TOPIC_WORDS.length ? ` ${k}` : ''}`;
      return k % 17 === 5 ? `${RESOLVED_TOPIC_PREFIX}${base}` : base;
    });
  });
  const topicWeights = topicsOf.map((topics) => prefixSums(topics.map((_, k) => 1 / (k + 1))));

  // ---- messages, oldest first, spread over a year.
  const startSeconds = Math.floor(nowMs / 1000) - 365 * 86400;
  const span = 365 * 86400 - 60;
  for (let i = 0; i < nMessages; i++) {
    const timestamp = startSeconds + Math.floor((i * span) / Math.max(1, nMessages));
    const id = store.nextId('message');
    let message: Message;
    let audience: number[];
    if (rand() < 0.12) {
      // A direct message between nearby users (people talk to the same few colleagues).
      const si = int(humans.length);
      const sender = humans[si]!;
      const size = Math.min(rand() < 0.85 ? 1 : 2 + int(2), humans.length - 1);
      const others = new Set<number>();
      for (let attempt = 0; others.size < size && attempt < 100; attempt++) {
        const friend = humans[(si + 1 + int(Math.min(12, humans.length - 1))) % humans.length]!;
        if (friend.user_id !== sender.user_id) others.add(friend.user_id);
      }
      const participants = [sender.user_id, ...others].sort((a, b) => a - b);
      // As factory.ts: a 1:1 conversation's recipient is the receiving user's.
      const recipientKey = others.size === 1 ? [...others] : participants;
      message = baseMessage(id, sender.user_id, timestamp, sentence(rand));
      Object.assign(message, { type: 'private', topic: '', dm_user_ids: participants, recipient_id: store.dmRecipientId(recipientKey) });
      audience = participants;
    } else {
      const c = weightedIndex(cumulative, rand);
      const channel = channels[c]!;
      audience = subscribers[c]!;
      const senderId = c === 1 ? users[int(5)]!.user_id : audience[int(audience.length)]!;
      const topics = topicsOf[c]!;
      const topic = topics[weightedIndex(topicWeights[c]!, rand)]!;
      message = baseMessage(id, senderId, timestamp, sentence(rand));
      Object.assign(message, { type: 'stream', stream_id: channel.stream_id, topic, recipient_id: channel.recipient_id });
    }
    if (rand() < 0.03) decorate(store, message, rand, audience);
    if (rand() < 0.04) addReactions(message, rand, audience);
    if (rand() < 0.02) {
      message.edit_history.unshift({ user_id: message.sender_id, timestamp: timestamp + 120, prev_content: `${message.content} (draft)`, prev_rendered_content: `<p>${message.content} (draft)</p>` });
      message.last_edit_timestamp = timestamp + 120;
    }
    store.messages.set(id, message);
    store.indexMessage(message);
  }

  // ---- flags: history is read; each user has a few recent unreads per conversation and some stars.
  for (let c = 0; c < channels.length; c++) {
    const ids = store.channelMessageIds(channels[c]!.stream_id);
    for (const userId of subscribers[c]!) {
      const k = int(4);
      for (let j = ids.length - 1; j >= 0 && j >= ids.length - k; j--) {
        if (store.messages.get(ids[j]!)!.sender_id !== userId) store.setFlag(userId, ids[j]!, 'read', false);
      }
    }
  }
  for (const u of humans) {
    const dms = store.dmMessageIds(u.user_id);
    for (let j = dms.length - 1; j >= 0 && j >= dms.length - int(3); j--) {
      if (store.messages.get(dms[j]!)!.sender_id !== u.user_id) store.setFlag(u.user_id, dms[j]!, 'read', false);
    }
    if (u.user_id % 3 === 0 && dms.length > 0) store.setFlag(u.user_id, dms[int(dms.length)]!, 'starred', true);
  }
  return store;
}

function baseMessage(id: number, senderId: number, timestamp: number, content: string): Message {
  return {
    id,
    sender_id: senderId,
    type: 'stream',
    topic: '',
    recipient_id: 0,
    content,
    rendered_content: `<p>${content}</p>`,
    timestamp,
    client: 'website',
    is_me_message: false,
    reactions: [],
    edit_history: [],
  };
}

/** A plain sentence: capitalized words and a full stop (markdown.ts renders it as `<p>text</p>`). */
function sentence(rand: () => number): string {
  const n = 4 + Math.floor(rand() * 11);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** Adds Markdown (emphasis, code, a link or a mention) and renders it properly, setting mention flags. */
function decorate(store: Store, message: Message, rand: () => number, audience: number[]): void {
  const kind = Math.floor(rand() * 4);
  const word = WORDS[Math.floor(rand() * WORDS.length)]!;
  const mentioned = audience[Math.floor(rand() * audience.length)]!;
  const extra =
    kind === 0
      ? `**${word}**`
      : kind === 1
        ? `\`${word}()\``
        : kind === 2
          ? `see https://example.com/${word}`
          : `@**${store.users.get(mentioned)!.full_name}|${mentioned}**`;
  message.content = `${message.content} ${extra}`;
  const rendered = renderMarkdown(store, message.content);
  message.rendered_content = rendered.html;
  if (rendered.mentionedUserIds.size > 0) {
    for (const userId of rendered.mentionedUserIds) applyMentionFlags(store, userId, message.id, rendered, new Set());
  }
}

function addReactions(message: Message, rand: () => number, audience: number[]): void {
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const [name, code] = REACTION_EMOJI[Math.floor(rand() * REACTION_EMOJI.length)]!;
    const userId = audience[Math.floor(rand() * audience.length)]!;
    if (message.reactions.some((r) => r.user_id === userId && r.emoji_code === code)) continue;
    message.reactions.push({ emoji_name: name, emoji_code: code, reaction_type: 'unicode_emoji', user_id: userId });
  }
}

/**
 * `count` distinct items of the concatenated `parts`, in random order: a partial Fisher–Yates over
 * a copy when most are wanted, rejection sampling when few are (a 100,000-user organization has a
 * thousand channels, most of them small: copying everyone for each would dominate).
 */
function sample<T>(parts: readonly (readonly T[])[], count: number, rand: () => number): T[] {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const at = (i: number): T => (i < parts[0]!.length ? parts[0]![i]! : parts[1]![i - parts[0]!.length]!);
  if (count * 4 < total) {
    const picked = new Set<number>();
    const out: T[] = [];
    while (out.length < count) {
      const i = Math.floor(rand() * total);
      if (!picked.has(i)) out.push(at((picked.add(i), i)));
    }
    return out;
  }
  const copy = parts.flat();
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rand() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

function prefixSums(weights: number[]): number[] {
  const sums: number[] = [];
  let total = 0;
  for (const w of weights) sums.push((total += w));
  return sums;
}

/** An index drawn with probability proportional to its weight (binary search in prefix sums). */
function weightedIndex(cumulative: number[], rand: () => number): number {
  const target = rand() * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
