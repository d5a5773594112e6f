/**
 * `realm_user` events (https://zulip.com/api/get-events#realm_user-add), applied as Zulip's own
 * `apply_event` (zerver/lib/events.py) and zulip-flutter's `UserStore` do.
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { User } from '../../../zulip/model/users.js';
import { own, setKnown, type DirectoryData, type DirectoryEvent } from '../data.js';

type Person = { user_id: number; [key: string]: unknown };

export function applyRealmUserEvent(data: DirectoryData, event: DirectoryEvent): void {
  const person = event.person as Person | undefined;
  if (!person || typeof person.user_id !== 'number') return;
  const id = person.user_id;
  switch (event.op) {
    case 'add': {
      const user = own(person) as unknown as User;
      user.is_active ??= true;
      // A new account has no custom profile values yet; the register state carries profile_data for humans.
      if (!user.is_bot && user.profile_data === undefined) user.profile_data = {};
      data.users.set(id, user);
      return;
    }
    case 'remove':
      // Since deactivation became `realm_user/update {is_active}`, `remove` means access lost (FL 228).
      if (data.featureLevel >= featureLevels.deactivationAsUpdate) data.users.delete(id);
      else data.users.update(id, (u) => (u.is_active = false));
      return;
    case 'update':
      data.users.update(id, (u) => applyPersonUpdate(u, person));
      if (person.is_active === false && data.featureLevel >= featureLevels.groupsWithoutDeactivated) leaveGroups(data, id);
      return;
  }
}

/** One `realm_user/update`: each event carries `user_id` and the one property that changed. */
function applyPersonUpdate(user: User, person: Person): void {
  for (const [key, value] of Object.entries(person)) {
    if (key !== 'user_id') setKnown(user, key, value);
  }
  if (typeof person.role === 'number') {
    // Events send only `role`; the legacy flags GET /users also returns follow from it.
    user.is_owner = person.role === 100;
    user.is_admin = person.role === 100 || person.role === 200;
    user.is_guest = person.role === 600;
  }
  if (typeof person.new_email === 'string') user.email = person.new_email;
  const field = person.custom_profile_field as { id: number; value: string | null; rendered_value?: string } | undefined;
  if (field && user.profile_data) {
    const key = String(field.id);
    if (field.value === null || field.value === '') delete user.profile_data[key];
    else
      user.profile_data[key] =
        field.rendered_value === undefined ? { value: field.value } : { value: field.value, rendered_value: field.rendered_value };
  }
}

/** A deactivated user drops out of the member list of every group, as the server's lists do. */
function leaveGroups(data: DirectoryData, userId: number): void {
  const ids = [...data.userGroups.values()].filter((g) => g.members.includes(userId)).map((g) => g.id);
  for (const id of ids) data.userGroups.update(id, (g) => (g.members = g.members.filter((m) => m !== userId)));
}
