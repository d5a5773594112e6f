/**
 * The shape of a request's accounts (accounts.ts, docs/accounts.md): what the schema acts as (the
 * session layer's own are in sessions/sessions.ts). Types only, so that context.ts can name them.
 */
import type { Credentials } from '../zulip/credentials.js';
import type { UpstreamServer } from './upstream/server.js';

/** One account the request acts for. */
export interface RequestAccount {
  readonly id: string;
  readonly server: UpstreamServer;
  readonly email: string;
  readonly credentials: Credentials;
}
