/**
 * The per-request path for users by ID (when no live directory answers), choosing the cheapest
 * upstream call for the batch:
 *
 * - From feature level 384 (Zulip 11.0, `featureLevels.userIdsParameter`) `GET /users` takes
 *   `user_ids` and returns only those users: one call per batch, whose size follows the batch, not
 *   the organization. The first batch of a gateway finds out whether the server honours it.
 * - Below it, a few IDs are fetched one by one with `GET /users/{user_id}` in parallel, many with the
 *   whole directory `GET /users` (once per request). Zulip's default rate limit is 200 requests per
 *   minute per user (https://zulip.com/api/rest-error-handling#rate-limit-exceeded), so the threshold
 *   must stay small: a query that resolves `threshold` users costs that many requests of the budget,
 *   while one `GET /users` lists the whole organization, an answer of megabytes in a large one
 *   (docs/operations.md, "Live directory"). At the default of {@link DEFAULT_USER_IDS_BATCH_THRESHOLD} a query spends at
 *   most 2.5% of a minute's budget, and the one-user lookups clients make most cost a small answer.
 */
import type { ZulipConnection } from '../../zulip/connection.js';
import { ZulipErrorCode } from '../../zulip/error-codes.js';
import { ZulipApiError } from '../../zulip/errors.js';
import type { User } from '../../zulip/model/users.js';
import { getUser, getUsers } from '../../zulip/routes/users.js';

/** Batches of at most this many IDs are fetched one by one below feature level 384. */
export const DEFAULT_USER_IDS_BATCH_THRESHOLD = 5;

/** Loads users by ID for one request; `undefined` entries are users the caller cannot see. */
export type UserBatchFetcher = (ids: readonly number[]) => Promise<(User | undefined | Error)[]>;

/** What the gateway learned about `user_ids` support (one per gateway, see UpstreamServer). */
export interface UserIdsSupport {
  /** undefined until the first `GET /users?user_ids=` answered. */
  userIdsSupported: boolean | undefined;
}

export function perRequestUsers(connection: ZulipConnection, server: UserIdsSupport, threshold: number): UserBatchFetcher {
  let all: Promise<Map<number, User>> | undefined;
  const pick = async (ids: readonly number[], from: Promise<Map<number, User>>) => {
    const byId = await from;
    return ids.map((id) => byId.get(id));
  };

  return async (ids) => {
    if (all) return pick(ids, all);
    if (server.userIdsSupported === false) {
      // client_gravatar=false: the gateway hands out avatar URLs, it does not compute gravatars.
      if (ids.length > threshold) return pick(ids, (all = fetchUsers(connection)));
      return Promise.all(ids.map((id) => oneUser(connection, id)));
    }
    // Supported, or not known yet: ask for these users only. A server below level 384 ignores
    // `user_ids` and lists everyone (saying so in ignored_parameters_unsupported): that answer
    // then serves the whole request, and the gateway knows for the next ones. No feature-level
    // round trip is needed to find out.
    const wanted = new Set(ids);
    const answer = getUsers(connection, { userIds: [...ids], clientGravatar: false });
    const byId = answer.then(({ members }) => new Map(members.map((u) => [u.user_id, u])));
    const { members, ignored_parameters_unsupported: ignored } = (await answer) as Awaited<typeof answer> & {
      ignored_parameters_unsupported?: string[];
    };
    const honoured = !ignored?.includes('user_ids') && members.every((u) => wanted.has(u.user_id));
    server.userIdsSupported = honoured;
    if (!honoured) all = byId;
    return pick(ids, byId);
  };
}

function fetchUsers(connection: ZulipConnection): Promise<Map<number, User>> {
  return getUsers(connection, { clientGravatar: false }).then(({ members }) => new Map(members.map((u) => [u.user_id, u])));
}
async function oneUser(connection: ZulipConnection, id: number): Promise<User | undefined | Error> {
  try {
    return (await getUser(connection, { userId: id, clientGravatar: false })).user;
  } catch (error) {
    // "No such user" and "Insufficient permission" (a guest's inaccessible user) are both BAD_REQUEST:
    // GET /users would simply not list that user.
    if (error instanceof ZulipApiError && error.code === ZulipErrorCode.badRequest) return undefined;
    return error instanceof Error ? error : new Error(String(error));
  }
}
