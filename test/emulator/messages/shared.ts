/** Helpers the message endpoint tests share. */
import type { ZulipConnection } from '../../../src/zulip/connection.js';
import type { WireParams } from '../../../src/zulip/params.js';
import { eventsOf, registerEventQueue } from '../../helpers/emulator.js';

/** `anchor: newest` as Zulip reports it back. */
export const NEWEST = 10_000_000_000_000_000;

export type Body = Record<string, any>;

export const registerQueue = (conn: ZulipConnection, params: WireParams = {}) =>
  registerEventQueue(conn, ['message', 'update_message', 'delete_message', 'update_message_flags', 'reaction'], params);

export const pollEvents = (conn: ZulipConnection, queueId: string) =>
  eventsOf<Body>(conn, queueId, { keepIds: true, validate: true, allowExtra: ['local_message_id'] });
