/**
 * Development-server endpoints (no authentication), as on a Zulip development server:
 * `POST /dev_fetch_api_key` (username → api_key) and `GET /dev_list_users`.
 * https://zulip.com/api/dev-fetch-api-key
 */
import type { Route } from '../context.js';
import { ApiError } from '../errors.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

export const routes: Route[] = [
  {
    operation: ops.devFetchApiKey,
    auth: false,
    handler: ({ params, store }) => {
      const username = params.str('username');
      const user = store.userByEmail(username);
      if (!user) throw new ApiError('AUTHENTICATION_FAILED', 'This user is not registered.', 401);
      if (!user.is_active) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
      return { api_key: user.api_key, email: user.email, user_id: user.user_id };
    },
  },
  {
    operation: ops.devListUsers,
    auth: false,
    handler: ({ store }) => {
      const active = [...store.users.values()].filter((u) => u.is_active && !u.is_bot);
      const entry = (u: (typeof active)[number]) => ({ email: u.delivery_email, user_id: u.user_id, full_name: u.full_name, role: u.role });
      return {
        direct_admins: active.filter((u) => store.isAdmin(u)).map(entry),
        direct_users: active.filter((u) => !store.isAdmin(u)).map(entry),
      };
    },
  },
];
