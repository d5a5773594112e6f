/**
 * The session's secrets, derived once from GATEWAY_SECRET (or, with one instance and no secret,
 * from random bytes that die with the process: its sessions do too).
 *
 * - A session token is 32 random bytes (base64url). The store never sees it: sessions are keyed by
 *   HMAC-SHA256(token) under a derived key, so a dump of the store cannot be replayed as a cookie.
 * - What a session holds (its accounts, API keys included) is sealed with AES-256-GCM under another
 *   derived key, the session's hash as additional data: a sealed record moved to another session's
 *   key does not open.
 * - The keys come from HKDF-SHA256 (RFC 5869) over the secret, one `info` label each, so no key is
 *   used for two purposes and the secret itself never keys anything here.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed records start with this, so that a later format can be told apart. */
const VERSION = 'v1';

export interface SessionCrypto {
  /** A new session token: what the cookie or bearer carries. */
  newToken(): string;
  /** A new account id (opaque, unique within its session). */
  newAccountId(): string;
  /** The store key of a token (hex); never the token. */
  hashToken(token: string): string;
  /** A keyed id of one credential on one server, to find the sessions holding it (never the credential). */
  credentialId(server: string, email: string, apiKey: string): string;
  /** `value` as JSON, encrypted and authenticated for the session `hash`. */
  seal(hash: string, value: unknown): string;
  /** What `seal` sealed for `hash`; undefined when it does not open (tampered, another session's, another secret). */
  open(hash: string, sealed: string): unknown;
}

/** A well-formed token: 43 base64url characters (32 bytes). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function isTokenShape(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export function createSessionCrypto(secret: string | undefined): SessionCrypto {
  const ikm = secret !== undefined && secret !== '' ? Buffer.from(secret, 'utf8') : randomBytes(32);
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', ikm, Buffer.from('chatgraph sessions'), info, 32));
  const tokenKey = derive('session token hash');
  const sealKey = derive('session record encryption');
  const credentialKey = derive('session credential index');
  return {
    newToken: () => randomBytes(TOKEN_BYTES).toString('base64url'),
    newAccountId: () => randomBytes(9).toString('base64url'),
    hashToken: (token) => createHmac('sha256', tokenKey).update(token).digest('hex'),
    credentialId: (server, email, apiKey) =>
      // Length-prefixed fields: no two different triples hash the same input.
      createHmac('sha256', credentialKey).update(`${server.length}:${server}\n${email.length}:${email}\n${apiKey}`).digest('hex'),
    seal(hash, value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      cipher.setAAD(Buffer.from(hash));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(hash, sealed) {
      if (!sealed.startsWith(`${VERSION}.`)) return undefined;
      const bytes = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
      if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealKey, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(hash));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
