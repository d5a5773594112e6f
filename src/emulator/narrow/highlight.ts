/** Search highlighting: Zulip's `match_content` / `match_subject`. */
import { escapeHtml } from '../markdown.js';
import type { Memo } from '../memo.js';
import { keywordPattern } from './match.js';

// ---- search highlighting -----------------------------------------------------------------------

export function highlightText(text: string, patterns: RegExp[]): string {
  let out = text;
  for (const re of patterns) {
    re.lastIndex = 0;
    out = out.replace(re, (w) => `\u0001${w}\u0002`);
  }
  return out;
}

/**
 * Zulip's `match_content` / `match_subject`: the rendered content and the escaped topic with each
 * keyword hit wrapped in `<span class="highlight">`. Only text outside HTML tags is marked.
 */
export function highlightMatches(
  memo: Memo,
  renderedContent: string,
  topic: string,
  keywords: string[],
): { match_content: string; match_subject: string } {
  const patterns = keywords.map((word) => keywordPattern(memo, word));
  const mark = (s: string) => s.replace(/\u0001/g, '<span class="highlight">').replace(/\u0002/g, '</span>');
  // Tags and character references stay as they are; only the text between them is marked.
  const content = renderedContent
    .split(/(<[^>]*>|&#?\w+;)/)
    .map((part, i) => (i % 2 === 1 ? part : mark(highlightText(part, patterns))))
    .join('');
  const subject = mark(escapeHtml(highlightText(topic, patterns)));
  return { match_content: content, match_subject: subject };
}
