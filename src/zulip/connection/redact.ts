/**
 * Keeps our credentials out of error messages: a server may echo what it was sent ("Invalid API key
 * <key>"), and error messages reach GraphQL clients and logs.
 */
import type { Credentials } from '../credentials.js';

/** Characters that can continue an API key, an email:key pair or a base64 token. */
const TOKEN_CHAR = 'A-Za-z0-9+/=_\\-';

const MAX_MESSAGE_LENGTH = 500;

/**
 * Replaces each whole occurrence of the API key, of `email:apiKey` and of its base64 form by
 * `[redacted]`. Whole tokens only: a one-letter key must not turn "Invalid API key" into
 * "Invalid API [redacted]ey". Long messages are clipped.
 */
export function redactCredentials(text: string, credentials: Credentials | undefined): string {
  const clipped = text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
  const pattern = credentialPattern(credentials);
  return pattern ? clipped.replace(pattern, '[redacted]') : clipped;
}

function credentialPattern(credentials: Credentials | undefined): RegExp | undefined {
  if (!credentials || credentials.apiKey === '') return undefined;
  const pair = `${credentials.email}:${credentials.apiKey}`;
  const secrets = [Buffer.from(pair, 'utf8').toString('base64'), pair, credentials.apiKey]
    // Longest first, so the pair is redacted whole rather than around its key.
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  return new RegExp(`(?<![${TOKEN_CHAR}])(?:${secrets.join('|')})(?![${TOKEN_CHAR}])`, 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
