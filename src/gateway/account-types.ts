/**
 * The shapes of a request's accounts (accounts.ts, docs/accounts.md): what the session layer
 * gives, and what the schema acts as. Types only, so that context.ts can name them.
 */
import type { Credentials } from '../zulip/credentials.js';
import type { UpstreamServer } from './upstream/server.js';

/** One account of a server-side session, as the session layer gives it. */
export interface SessionAccount {
  /** The account's id within the gateway (opaque, stable for the session's life). */
  readonly id: string;
  /** Its server, one of the allowed servers. */
  readonly server: string;
  readonly email: string;
  /** Its credentials, decrypted for this request only. */
  readonly credential: Credentials;
}

/** A server-side session, as the session layer puts it on the context. */
export interface RequestSession {
  readonly id: string;
  readonly accounts: readonly SessionAccount[];
}

/** One account the request acts for. */
export interface RequestAccount {
  readonly id: string;
  readonly server: UpstreamServer;
  readonly email: string;
  readonly credentials: Credentials;
}
