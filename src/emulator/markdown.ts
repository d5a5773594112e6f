/**
 * Message rendering: Zulip-flavoured Markdown through markdown-it (a real CommonMark renderer), plus
 * Zulip's mention syntax (`@**Full Name**`, `@**all**`, `@**topic**`, `@*group*`, `#**channel**`).
 * Returns who was mentioned so that sending and editing can set the mention flags.
 */
import MarkdownIt from 'markdown-it';
import type { Store } from './store.js';

export interface Rendered {
  html: string;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  /** `channel` for @**all** / @**everyone** / @**channel** / @**stream**, `topic` for @**topic**. */
  wildcard: 'channel' | 'topic' | null;
  isMeMessage: boolean;
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const CHANNEL_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Renders Markdown to the HTML Zulip would store as `rendered_content`. */
export function renderMarkdown(store: Store, content: string): Rendered {
  const result: Rendered = {
    html: '',
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    wildcard: null,
    isMeMessage: /^\/me\s/.test(content),
  };
  // Mentions are replaced by placeholders before Markdown runs so markdown-it escapes everything else.
  const replacements: string[] = [];
  const placeholder = (html: string) => `\u0000${replacements.push(html) - 1}\u0000`;
  const source = content
    .replace(/@_?\*\*([^*]+?)(?:\|(\d+))?\*\*/g, (whole, name: string, id?: string) => {
      const silent = whole.startsWith('@_');
      return placeholder(userMention(store, result, name, id, silent) ?? escapeHtml(whole));
    })
    .replace(/@\*([^*]+)\*/g, (whole, name: string) => placeholder(groupMention(store, result, name) ?? escapeHtml(whole)))
    .replace(/#\*\*([^*]+)\*\*/g, (whole, name: string) => placeholder(channelLink(store, name) ?? escapeHtml(whole)));
  const html = md.render(source).trim();
  result.html = html.replace(/\u0000(\d+)\u0000/g, (_, i: string) => replacements[Number(i)]!);
  return result;
}

function userMention(store: Store, r: Rendered, name: string, id: string | undefined, silent: boolean): string | null {
  const cls = silent ? 'user-mention silent' : 'user-mention';
  if (!id && CHANNEL_WILDCARDS.has(name)) {
    if (!silent) r.wildcard = 'channel';
    return `<span class="${cls} channel-wildcard-mention" data-user-id="*">@${escapeHtml(name)}</span>`;
  }
  if (!id && name === 'topic') {
    if (!silent) r.wildcard ??= 'topic';
    return `<span class="topic-mention">@${escapeHtml(name)}</span>`;
  }
  const user = id
    ? store.users.get(Number(id))
    : [...store.users.values()].find((u) => u.full_name.toLowerCase() === name.toLowerCase());
  if (!user) return null;
  if (!silent) r.mentionedUserIds.add(user.user_id);
  return `<span class="${cls}" data-user-id="${user.user_id}">@${escapeHtml(user.full_name)}</span>`;
}

function groupMention(store: Store, r: Rendered, name: string): string | null {
  const group = store.groupByName(name);
  if (!group || group.deactivated) return null;
  r.mentionedGroupIds.add(group.id);
  return `<span class="user-group-mention" data-user-group-id="${group.id}">@${escapeHtml(group.name)}</span>`;
}

function channelLink(store: Store, name: string): string | null {
  const channel = store.channelByName(name);
  if (!channel) return null;
  return `<a class="stream" data-stream-id="${channel.stream_id}" href="/#narrow/channel/${channel.stream_id}">#${escapeHtml(channel.name)}</a>`;
}

/** Renders a channel description (no mentions). */
export function renderDescription(text: string): string {
  return md.render(text).trim();
}
