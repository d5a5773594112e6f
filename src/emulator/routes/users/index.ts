/**
 * Users: `GET /users` (https://zulip.com/api/get-users), `GET /users/{user_id}`
 * (https://zulip.com/api/get-user), `GET /users/{email}` (https://zulip.com/api/get-user-by-email),
 * `GET /users/me` (https://zulip.com/api/get-own-user), `PATCH /users/{user_id}` and
 * `PATCH /users/{email}` (https://zulip.com/api/update-user), `DELETE /users/{user_id}`
 * (https://zulip.com/api/deactivate-user), `POST /users`, `DELETE /users/me` and
 * `POST /users/{user_id}/reactivate` (lifecycle.ts), the `realm_user` events they cause and the
 * `realm_user` / `realm_bot` / `custom_profile_fields` register state.
 *
 * Visibility rules shared with other resources are exported: {@link canAccessUser} (guests with
 * limited access, can_access_all_users_group), {@link serializeUser} and {@link avatarUrl}.
 */
import type { Route } from '../../context.js';
import { deactivateUser } from './deactivate.js';
import { createUser, deactivateOwnUser, reactivateUser } from './lifecycle.js';
import { getOwnUser, getUser, getUsers } from './read.js';
import { updateUser } from './update.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';

export { customProfileFields } from './profile-fields.js';
export { activeUserIds, checkFullName } from './update.js';
export { initialState } from './state.js';
export {
  accessibleUserIds,
  avatarUrl,
  canAccessAllUsers,
  canAccessUser,
  serializeUser,
  usersWhoCanAccess,
  type AvatarOptions,
  type SerializeOptions,
} from './wire.js';

export const routes: Route[] = [
  { operation: ops.getUsers, handler: getUsers },
  { operation: ops.getOwnUser, handler: getOwnUser },
  { operation: ops.getUser, handler: getUser },
  { operation: ops.updateUser, handler: updateUser },
  { operation: ops.deactivateUser, handler: deactivateUser },
  { operation: ops.createUser, handler: createUser },
  { operation: ops.deactivateOwnUser, handler: deactivateOwnUser },
  { operation: ops.reactivateUser, handler: reactivateUser },
];
