/**
 * The per-request path for users by ID (when no live directory answers), choosing the cheapest
 * upstream call for the batch:
 *
 * - From feature level 384 (Zulip 11.0) `GET /users` takes `user_ids` and returns only those users:
 *   one call per batch, whose size follows the batch, not the organization.
 * - Below it, a few IDs are fetched one by one with `GET /users/{user_id}` in parallel, many with the
 *   whole directory `GET /users` (once per request). Zulip's default rate limit is 200 requests per
 *   minute per user (https://zulip.com/api/rest-error-handling#rate-limit-exceeded), so the threshold
 *   must stay small: a query that resolves `threshold` users costs that many requests of the budget,
 *   while one `GET /users` of a 20,000-user organization is a 10 MB answer that takes the server
 *   about a second to build. At the default of {@link DEFAULT_USER_IDS_THRESHOLD} a query spends at
 *   most 5% of a minute's budget, and the one-user lookups clients make most cost a small answer.
 */
import type { ZulipConnection } from '../../zulip/connection.js';
import { ZulipApiError } from '../../zulip/errors.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { User } from '../../zulip/model/users.js';
import { getUser, getUsers } from '../../zulip/routes/users.js';
import { getFeatureLevel, type FeatureLevelSource } from '../feature-level.js';

/** Batches of at most this many IDs are fetched one by one below feature level 384. */
export const DEFAULT_USER_IDS_THRESHOLD = 10;

/** Loads users by ID for one request; `undefined` entries are users the caller cannot see. */
export type UserBatchFetcher = (ids: readonly number[]) => Promise<(User | undefined | Error)[]>;

export function perRequestUsers(connection: ZulipConnection, levels: FeatureLevelSource, threshold: number): UserBatchFetcher {
  let all: Promise<Map<number, User>> | undefined;
  // client_gravatar=false: the gateway hands out avatar URLs, it does not compute gravatars.
  const fetchAll = () =>
    (all ??= getUsers(connection, { clientGravatar: false }).then(({ members }) => new Map(members.map((u) => [u.user_id, u]))));

  return async (ids) => {
    if (all) {
      const byId = await all;
      return ids.map((id) => byId.get(id));
    }
    const level = await getFeatureLevel(levels);
    if (level >= featureLevels.userIdsParameter) {
      const { members } = await getUsers(connection, { userIds: [...ids], clientGravatar: false });
      const byId = new Map(members.map((u) => [u.user_id, u]));
      return ids.map((id) => byId.get(id));
    }
    if (ids.length > threshold) {
      const byId = await fetchAll();
      return ids.map((id) => byId.get(id));
    }
    return Promise.all(ids.map((id) => oneUser(connection, id)));
  };
}

async function oneUser(connection: ZulipConnection, id: number): Promise<User | undefined | Error> {
  try {
    return (await getUser(connection, { userId: id, clientGravatar: false })).user;
  } catch (error) {
    // "No such user" and "Insufficient permission" (a guest's inaccessible user) are both BAD_REQUEST:
    // GET /users would simply not list that user.
    if (error instanceof ZulipApiError && error.code === 'BAD_REQUEST') return undefined;
    return error instanceof Error ? error : new Error(String(error));
  }
}
