/**
 * markdown.ts: Zulip's mention and link syntax on top of markdown-it, the mention data sending
 * needs, and the plain-text fast path (which must render exactly as markdown-it does).
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/emulator/generate.js';
import { encodeHashComponent, isPlainText, renderMarkdown } from '../../src/emulator/markdown.js';
import { seedDemo } from '../../src/emulator/seed.js';

const store = seedDemo(Date.UTC(2026, 0, 1));
const id = (login: string) => store.userByEmail(`${login}@zulip.example.com`)!.user_id;

describe('renderMarkdown', () => {
  it('renders CommonMark with Zulip\'s options (linkify, hard breaks, no raw HTML)', () => {
    expect(renderMarkdown(store, '**bold** and *it*').html).toBe('<p><strong>bold</strong> and <em>it</em></p>');
    expect(renderMarkdown(store, 'line one\nline two').html).toBe('<p>line one<br>\nline two</p>');
    expect(renderMarkdown(store, 'see https://zulip.com/api').html).toBe('<p>see <a href="https://zulip.com/api">https://zulip.com/api</a></p>');
    expect(renderMarkdown(store, '<script>alert(1)</script>').html).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(renderMarkdown(store, '```ts\nconst a = 1;\n```').html).toBe('<pre><code class="language-ts">const a = 1;\n</code></pre>');
  });

  it('renders user mentions by name or id, and reports who was mentioned', () => {
    const r = renderMarkdown(store, 'Hi @**King Hamlet** and @**Iago|2**, not @**Nobody**');
    expect(r.html).toBe(
      `<p>Hi <span class="user-mention" data-user-id="${id('hamlet')}">@King Hamlet</span> and ` +
        `<span class="user-mention" data-user-id="${id('iago')}">@Iago</span>, not @**Nobody**</p>`,
    );
    expect([...r.mentionedUserIds].sort()).toEqual([id('hamlet'), id('iago')].sort());
    expect([r.wildcard, r.channelWildcard, r.topicWildcard]).toEqual([null, false, false]);
  });

  it('renders silent mentions without @ and without mentioning anyone', () => {
    const r = renderMarkdown(store, '@_**King Hamlet** @_**all** @_*leadership*');
    expect(r.html).toBe(
      `<p><span class="user-mention silent" data-user-id="${id('hamlet')}">King Hamlet</span> ` +
        '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> ' +
        `<span class="user-group-mention silent" data-user-group-id="${store.groupByName('leadership')!.id}">leadership</span></p>`,
    );
    expect(r.mentionedUserIds.size + r.mentionedGroupIds.size).toBe(0);
    expect(r.wildcard).toBeNull();
  });

  it('reports channel and topic wildcards, both at once when both occur', () => {
    expect(renderMarkdown(store, '@**all**').channelWildcard).toBe(true);
    expect(renderMarkdown(store, '@**everyone**').wildcard).toBe('channel');
    const topic = renderMarkdown(store, '@**topic** please');
    expect([topic.wildcard, topic.topicWildcard, topic.channelWildcard]).toEqual(['topic', true, false]);
    expect(topic.html).toBe('<p><span class="topic-mention">@topic</span> please</p>');
    const both = renderMarkdown(store, '@**topic** and @**channel**');
    expect([both.channelWildcard, both.topicWildcard]).toEqual([true, true]);
  });

  it('renders group mentions and channel / topic links', () => {
    const players = store.groupByName('players')!;
    const r = renderMarkdown(store, '@*players* see #**design** and #**general>✔ deploy failure**');
    expect(r.mentionedGroupIds).toEqual(new Set([players.id]));
    const design = store.channelByName('design')!;
    const general = store.channelByName('general')!;
    expect(r.html).toBe(
      `<p><span class="user-group-mention" data-user-group-id="${players.id}">@players</span> see ` +
        `<a class="stream" data-stream-id="${design.stream_id}" href="/#narrow/channel/${design.stream_id}-design">#design</a> and ` +
        `<a class="stream-topic" data-stream-id="${general.stream_id}" href="/#narrow/channel/${general.stream_id}-general/topic/${encodeHashComponent('✔ deploy failure')}">#general &gt; ✔ deploy failure</a></p>`,
    );
    expect(renderMarkdown(store, '#**nowhere**').html).toBe('<p>#**nowhere**</p>');
  });

  it('flags /me messages', () => {
    expect(renderMarkdown(store, '/me waves').isMeMessage).toBe(true);
    expect(renderMarkdown(store, 'I /me').isMeMessage).toBe(false);
  });

  it('encodes narrow hash components as Zulip does', () => {
    expect(encodeHashComponent('a b.(c)%')).toBe('a.20b.2E.28c.29.25');
  });
});

describe('the plain-text fast path', () => {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

  it('accepts only text markdown-it renders as a bare paragraph', () => {
    for (const text of ['Hello world.', 'Deploy now, please! Really?', "It's done. Next one", 'A']) expect(isPlainText(text), text).toBe(true);
    for (const text of ['1. item', '- item', '# title', 'see example.com', 'v2.0', 'a *b*', 'trailing ', ' leading', 'two\nlines', 'a@b', '']) {
      expect(isPlainText(text), text).toBe(false);
    }
  });

  it('renders exactly what markdown-it renders, on random sentences', () => {
    const rand = seededRandom(3);
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,;?!'.";
    let plain = 0;
    for (let i = 0; i < 2000; i++) {
      const length = 1 + Math.floor(rand() * 40);
      let text = '';
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(rand() * alphabet.length)];
      if (!isPlainText(text)) continue;
      plain++;
      expect(renderMarkdown(store, text).html, JSON.stringify(text)).toBe(md.render(text).trim());
    }
    expect(plain).toBeGreaterThan(100);
  });
});
