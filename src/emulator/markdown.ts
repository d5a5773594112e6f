/**
 * Message rendering: Zulip-flavoured Markdown through markdown-it (a real CommonMark renderer), plus
 * Zulip's mention syntax (`@**Full Name**`, `@**Full Name|id**`, silent `@_**...**`, `@**all**`,
 * `@**topic**`, `@*group*`, `@_*group*`, `#**channel**`, `#**channel>topic**`).
 * Returns who was mentioned so that sending and editing can set the mention flags.
 *
 * Plain sentences (letters, digits, spaces and simple punctuation) skip markdown-it: their HTML is
 * `<p>text</p>`, exactly what markdown-it would produce. The large generated organization relies on
 * it to build 200,000 messages quickly.
 */
import MarkdownIt from 'markdown-it';
import type { Store } from './store.js';

export interface Rendered {
  html: string;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  /** `channel` for @**all** / @**everyone** / @**channel** / @**stream**, `topic` for @**topic**. */
  wildcard: 'channel' | 'topic' | null;
  /** Whether a (non-silent) channel wildcard / topic wildcard mention occurs; both can. */
  channelWildcard: boolean;
  topicWildcard: boolean;
  isMeMessage: boolean;
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const CHANNEL_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);

/**
 * Text markdown-it renders as a bare paragraph: it starts with a letter, has no markup, no line
 * breaks, no trailing space, and a `.` only before a space or at the end (so nothing linkifies).
 */
const PLAIN = /^[A-Za-z][A-Za-z0-9 ,;?!']*(?:\.(?: [A-Za-z0-9 ,;?!']*)?)*$/;

export function isPlainText(content: string): boolean {
  return PLAIN.test(content) && !content.endsWith(' ');
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Zulip's URL-hash encoding of a narrow component (`%` → `.`, and `.`, `(`, `)` escaped). */
export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s).replace(/[%().]/g, (c) => ({ '%': '.', '(': '.28', ')': '.29', '.': '.2E' })[c]!);
}

/** The `/#narrow/channel/<id>-<name>` path Zulip links channels with. */
export function channelNarrowPath(streamId: number, name: string): string {
  return `/#narrow/channel/${streamId}-${encodeHashComponent(name.replace(/ /g, '-'))}`;
}

/** Renders Markdown to the HTML Zulip would store as `rendered_content`. */
export function renderMarkdown(store: Store, content: string): Rendered {
  const result: Rendered = {
    html: '',
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    wildcard: null,
    channelWildcard: false,
    topicWildcard: false,
    isMeMessage: /^\/me\s/.test(content),
  };
  if (isPlainText(content)) {
    result.html = `<p>${content}</p>`;
    return result;
  }
  // Mentions are replaced by placeholders before Markdown runs so markdown-it escapes everything else.
  // Private-use characters: markdown-it keeps them as they are (it turns NUL into U+FFFD).
  const replacements: string[] = [];
  const placeholder = (html: string) => `\uE000${replacements.push(html) - 1}\uE001`;
  const source = content
    .replace(/@_?\*\*([^*]+?)(?:\|(\d+))?\*\*/g, (whole, name: string, id?: string) => {
      const silent = whole.startsWith('@_');
      return placeholder(userMention(store, result, name, id, silent) ?? escapeHtml(whole));
    })
    .replace(/@_?\*([^*]+)\*/g, (whole, name: string) =>
      placeholder(groupMention(store, result, name, whole.startsWith('@_')) ?? escapeHtml(whole)),
    )
    .replace(/#\*\*([^*]+)\*\*/g, (whole, name: string) => placeholder(channelLink(store, name) ?? escapeHtml(whole)));
  const html = md.render(source).trim();
  result.html = html.replace(/\uE000(\d+)\uE001/g, (_, i: string) => replacements[Number(i)]!);
  return result;
}

function userMention(store: Store, r: Rendered, name: string, id: string | undefined, silent: boolean): string | null {
  const cls = silent ? 'user-mention silent' : 'user-mention';
  const at = silent ? '' : '@';
  if (!id && CHANNEL_WILDCARDS.has(name)) {
    if (!silent) {
      r.wildcard = 'channel';
      r.channelWildcard = true;
    }
    return `<span class="user-mention channel-wildcard-mention${silent ? ' silent' : ''}" data-user-id="*">${at}${escapeHtml(name)}</span>`;
  }
  if (!id && name === 'topic') {
    if (!silent) {
      r.wildcard ??= 'topic';
      r.topicWildcard = true;
    }
    return `<span class="topic-mention${silent ? ' silent' : ''}">${at}${escapeHtml(name)}</span>`;
  }
  const user = id
    ? store.users.get(Number(id))
    : [...store.users.values()].find((u) => u.full_name.toLowerCase() === name.toLowerCase());
  if (!user) return null;
  if (!silent) r.mentionedUserIds.add(user.user_id);
  return `<span class="${cls}" data-user-id="${user.user_id}">${at}${escapeHtml(user.full_name)}</span>`;
}

function groupMention(store: Store, r: Rendered, name: string, silent: boolean): string | null {
  const group = store.groupByName(name);
  if (!group || group.deactivated) return null;
  if (!silent) r.mentionedGroupIds.add(group.id);
  return `<span class="user-group-mention${silent ? ' silent' : ''}" data-user-group-id="${group.id}">${silent ? '' : '@'}${escapeHtml(group.name)}</span>`;
}

/** `#**channel**`, or `#**channel>topic**` for a topic link. */
function channelLink(store: Store, text: string): string | null {
  const whole = store.channelByName(text);
  if (whole) {
    return `<a class="stream" data-stream-id="${whole.stream_id}" href="${channelNarrowPath(whole.stream_id, whole.name)}">#${escapeHtml(whole.name)}</a>`;
  }
  const sep = text.indexOf('>');
  if (sep < 0) return null;
  const channel = store.channelByName(text.slice(0, sep));
  if (!channel) return null;
  const topic = text.slice(sep + 1);
  const href = `${channelNarrowPath(channel.stream_id, channel.name)}/topic/${encodeHashComponent(topic)}`;
  return `<a class="stream-topic" data-stream-id="${channel.stream_id}" href="${href}">#${escapeHtml(channel.name)} &gt; ${escapeHtml(topic)}</a>`;
}

/** Renders a channel description (no mentions). */
export function renderDescription(text: string): string {
  return md.render(text).trim();
}
