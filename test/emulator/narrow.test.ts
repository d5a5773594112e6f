/**
 * narrow/ on its own: parsing and validating narrows, the matcher event queues use, and the
 * anchored search (checked against a brute-force filter over every message on a generated
 * organization, in both directions and for merged sources).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/emulator/errors.js';
import { generateLargeOrganization } from '../../src/emulator/generate.js';
import {
  compileNarrow,
  fetchWindow,
  firstUnreadId,
  highlightMatches,
  LARGER_THAN_MAX_MESSAGE_ID,
  matchesNarrow,
  parseNarrow,
  planSearch,
  searchKeywords,
  validateNarrow,
  type NarrowTerm,
} from '../../src/emulator/narrow/index.js';
import { Memo } from '../../src/emulator/memo.js';
import { seedDemo } from '../../src/emulator/seed.js';
import type { Message, Store, User } from '../../src/emulator/store.js';

const NOW = Date.UTC(2026, 0, 1);

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  return expect.unreachable('expected an ApiError') as never;
}

describe('parseNarrow', () => {
  it('accepts the object and the legacy pair forms, and canonical operator names', () => {
    expect(parseNarrow([['stream', 'general'], { operator: 'subject', operand: 'x', negated: true }, ['pm-with', 'a@b.c'], ['group-pm-with', 'a@b.c']])).toEqual([
      { operator: 'channel', operand: 'general', negated: false },
      { operator: 'topic', operand: 'x', negated: true },
      { operator: 'dm', operand: 'a@b.c', negated: false },
      { operator: 'dm-including', operand: 'a@b.c', negated: false },
    ]);
    expect(parseNarrow(undefined)).toEqual([]);
    expect(parseNarrow([{ operator: 'dm', operand: [1, 2] }, { operator: 'id', operand: 7 }, { operator: 'channel', operand: 3 }])).toHaveLength(3);
  });

  it('rejects malformed terms', () => {
    const cases: [unknown, string][] = [
      ['general', 'narrow is not a list'],
      [[['a', 'b', 'c']], 'Invalid narrow: element is not a string pair'],
      [[['a', 1]], 'Invalid narrow: element is not a string pair'],
      [[{ operand: 'x' }], 'Invalid narrow: operator is missing'],
      [[{ operator: 'topic', operand: null }], 'Invalid narrow: operand is missing'],
      [[{ operator: 7, operand: 'x' }], 'operator is not a string'],
      [[{ operator: 'dm', operand: [1, 'a'] }], 'operand is not a string or an integer list'],
      [[{ operator: 'sender', operand: [1] }], 'operand is not a string or an integer'],
      [[{ operator: 'is', operand: 1 }], 'operand is not a string'],
    ];
    for (const [raw, msg] of cases) expect(errorOf(() => parseNarrow(raw)).message, JSON.stringify(raw)).toBe(msg);
  });
});

describe('validateNarrow and matchesNarrow on the demo organization', () => {
  const store = seedDemo(NOW);
  const user = (login: string) => store.userByEmail(`${login}@zulip.example.com`)!;
  const msg = (text: string) => [...store.messages.values()].find((m) => m.content.includes(text))!;

  it('knows only channels the viewer can see', () => {
    expect(() => validateNarrow(store, user('iago'), parseNarrow([['stream', 'engineering']]))).not.toThrow();
    const e = errorOf(() => validateNarrow(store, user('othello'), parseNarrow([['stream', 'engineering']])));
    expect([e.code, e.message]).toEqual(['BAD_NARROW', 'Invalid narrow operator: unknown channel engineering']);
    // Guests do not see public channels they are not in; web-public ones they do.
    expect(() => validateNarrow(store, user('polonius'), parseNarrow([['stream', 'legacy']]))).toThrow(/unknown channel legacy/);
    expect(() => validateNarrow(store, user('polonius'), parseNarrow([['stream', 'announce']]))).not.toThrow();
  });

  it('matches topics case-insensitively and the display name as the empty topic', () => {
    const hamlet = user('hamlet');
    expect(matchesNarrow(store, hamlet, msg('Recent thought'), parseNarrow([['topic', 'GREETINGS']]))).toBe(true);
    expect(matchesNarrow(store, hamlet, msg('empty topic'), parseNarrow([['topic', 'general chat']]))).toBe(true);
    expect(matchesNarrow(store, hamlet, msg('empty topic'), parseNarrow([['topic', '']]))).toBe(true);
    expect(matchesNarrow(store, hamlet, msg('Recent thought'), parseNarrow([{ operator: 'topic', operand: 'greetings', negated: true }]))).toBe(false);
  });

  it('never throws while matching, as event queues need (unknown is: matches)', () => {
    const hamlet = user('hamlet');
    expect(matchesNarrow(store, hamlet, msg('Recent thought'), [{ operator: 'is', operand: 'bogus', negated: false }])).toBe(true);
    expect(matchesNarrow(store, hamlet, msg('Recent thought'), [{ operator: 'channel', operand: 'deleted channel', negated: false }])).toBe(false);
  });

  it('matches dm with and without the viewer, and dm-including', () => {
    const hamlet = user('hamlet');
    const iago = user('iago');
    const oneToOne = msg('Can you review');
    expect(matchesNarrow(store, hamlet, oneToOne, parseNarrow([{ operator: 'dm', operand: [iago.user_id] }]))).toBe(true);
    expect(matchesNarrow(store, hamlet, oneToOne, parseNarrow([{ operator: 'dm', operand: [iago.user_id, hamlet.user_id] }]))).toBe(true);
    expect(matchesNarrow(store, hamlet, msg('Planning the play'), parseNarrow([{ operator: 'dm', operand: [iago.user_id] }]))).toBe(false);
    expect(matchesNarrow(store, hamlet, msg('Planning the play'), parseNarrow([{ operator: 'dm-including', operand: iago.email }]))).toBe(true);
  });

  it('finds the oldest unread message for first_unread', () => {
    const hamlet = user('hamlet');
    const plan = planSearch(store, hamlet, parseNarrow([['stream', 'design']]));
    const expected = [...store.messages.values()].find((m) => m.stream_id === store.channelByName('design')!.stream_id && !store.hasFlag(hamlet.user_id, m.id, 'read'));
    expect(firstUnreadId(store, hamlet, plan)).toBe(expected?.id);
    expect(firstUnreadId(store, hamlet, planSearch(store, hamlet, parseNarrow([['is', 'starred']])))).toBeUndefined();
  });
});

describe('search keywords and highlighting', () => {
  it('splits words and quoted phrases, lowercased', () => {
    expect(searchKeywords(parseNarrow([['search', 'Deploy "Step 3"  now']]))).toEqual(['deploy', 'step 3', 'now']);
  });

  it('marks whole words in text, never inside tags or character references', () => {
    const out = highlightMatches(new Memo(), '<p>Deploy <a href="/deploy">deployed</a> &amp; amp redeploy</p>', 'deploy & amp', ['deploy', 'amp']);
    expect(out.match_content).toBe(
      '<p><span class="highlight">Deploy</span> <a href="/deploy"><span class="highlight">deployed</span></a> &amp; <span class="highlight">amp</span> redeploy</p>',
    );
    expect(out.match_subject).toBe('<span class="highlight">deploy</span> &#38; <span class="highlight">amp</span>');
  });
});

describe('the anchored search against a brute-force filter', () => {
  const store = generateLargeOrganization({ users: 120, channels: 15, messages: 6000, seed: 7, nowMs: NOW });
  const members = [...store.users.values()].filter((u) => !u.is_bot);

  /** Every accepted message, ascending: what the indexes must reproduce. */
  function bruteForce(s: Store, user: User, narrow: NarrowTerm[]): Message[] {
    const plan = planSearch(s, user, narrow);
    return [...s.messages.values()].filter((m) => plan.accept(m));
  }

  function windowIds(all: Message[], anchor: number, includeAnchor: boolean, before: number, after: number) {
    const older = all.filter((m) => m.id < anchor);
    const newer = anchor >= LARGER_THAN_MAX_MESSAGE_ID ? [] : all.filter((m) => m.id > anchor);
    const at = includeAnchor ? all.filter((m) => m.id === anchor) : [];
    return {
      ids: [...older.slice(Math.max(0, older.length - before)), ...at, ...newer.slice(0, after)].map((m) => m.id),
      foundOldest: anchor <= 0 || older.length <= before,
      foundNewest: anchor >= LARGER_THAN_MAX_MESSAGE_ID || newer.length <= after,
    };
  }

  const narrows: NarrowTerm[][] = [
    [],
    parseNarrow([['is', 'dm']]),
    parseNarrow([['search', 'deploy']]),
    parseNarrow([['channels', 'public']]),
    parseNarrow([['stream', 'general'], ['search', 'coffee']]),
    parseNarrow([{ operator: 'is', operand: 'dm', negated: true }, { operator: 'has', operand: 'reaction' }]),
  ];

  it('returns exactly the window a full scan gives, for random anchors and sizes', () => {
    let rand = 12345;
    const next = (n: number) => ((rand = (rand * 1103515245 + 12345) % 2147483648) % n);
    let checked = 0;
    let nonEmpty = 0;
    for (let round = 0; round < 60; round++) {
      const user = members[next(members.length)]!;
      const narrow = narrows[round % narrows.length]!;
      const all = bruteForce(store, user, narrow);
      const anchors = [0, LARGER_THAN_MAX_MESSAGE_ID, 1 + next(store.messages.size), all[next(Math.max(1, all.length))]?.id ?? 1];
      for (const anchor of anchors) {
        const before = next(40);
        const after = next(40);
        const includeAnchor = next(2) === 0;
        const got = fetchWindow(store, planSearch(store, user, narrow), { anchor, includeAnchor, numBefore: before, numAfter: after });
        const want = windowIds(all, anchor, includeAnchor, before, after);
        expect({ ids: got.messages.map((m) => m.id), foundOldest: got.foundOldest, foundNewest: got.foundNewest }, `${JSON.stringify(narrow)} @${anchor}`).toEqual(want);
        checked++;
        if (got.messages.length > 0) nonEmpty++;
      }
    }
    expect(checked).toBe(240);
    expect(nonEmpty).toBeGreaterThan(150);
  });

  it('walks one channel instead of everything for a channel narrow', () => {
    const user = members[3]!;
    const channelId = store.subscribedChannelIds(user.user_id)[0]!;
    const plan = planSearch(store, user, [{ operator: 'channel', operand: channelId, negated: false }]);
    expect(plan.sources).toHaveLength(1);
    expect(plan.sources[0]).toBe(store.channelMessageIds(channelId));
    expect(plan.includeHistory).toBe(true);
    const personal = planSearch(store, user, []);
    expect(personal.sources.length).toBeLessThanOrEqual(store.subscribedChannelIds(user.user_id).length + 1);
    expect(personal.includeHistory).toBe(false);
  });

  it('compiles a narrow once into a predicate equal to term-by-term matching', () => {
    const user = members[5]!;
    const narrow = parseNarrow([{ operator: 'search', operand: 'plan', negated: true }, ['is', 'dm']]);
    const predicate = compileNarrow(store, user, narrow);
    for (const m of [...store.messages.values()].slice(0, 500)) {
      expect(predicate(m)).toBe(narrow.every((t) => matchesNarrow(store, user, m, [t])));
    }
  });
});
