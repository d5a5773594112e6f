/**
 * `user_group` events (https://zulip.com/api/get-events#user_group-add), applied as Zulip's
 * `apply_event` (zerver/lib/events.py) and zulip-flutter's `UserGroupStore` do.
 */
import type { UserGroup } from '../../../zulip/model/user-groups.js';
import { own, type DirectoryData, type DirectoryEvent } from '../data.js';

const ascending = (a: number, b: number) => a - b;

export function applyUserGroupEvent(data: DirectoryData, event: DirectoryEvent): void {
  const id = event.group_id as number;
  switch (event.op) {
    case 'add': {
      const group = own(event.group as UserGroup);
      data.userGroups.set(group.id, group);
      return;
    }
    case 'remove':
      data.userGroups.delete(id);
      return;
    case 'update': {
      const changes = (event.data ?? {}) as Record<string, unknown>;
      // Deactivated groups are left out of the state (and of GET /user_groups) without include_deactivated_groups.
      if (changes.deactivated === true) {
        data.userGroups.delete(id);
        return;
      }
      data.userGroups.update(id, (group) => {
        for (const [key, value] of Object.entries(changes)) (group as unknown as Record<string, unknown>)[key] = own(value);
      });
      return;
    }
    case 'add_members':
      data.userGroups.update(id, (g) => (g.members = union(g.members, event.user_ids)));
      return;
    case 'remove_members':
      data.userGroups.update(id, (g) => (g.members = difference(g.members, event.user_ids)));
      return;
    case 'add_subgroups':
      data.userGroups.update(id, (g) => (g.direct_subgroup_ids = union(g.direct_subgroup_ids, event.direct_subgroup_ids)));
      return;
    case 'remove_subgroups':
      data.userGroups.update(id, (g) => (g.direct_subgroup_ids = difference(g.direct_subgroup_ids, event.direct_subgroup_ids)));
      return;
  }
}

function union(ids: number[], added: unknown): number[] {
  return [...new Set([...ids, ...((added as number[] | undefined) ?? [])])].sort(ascending);
}

function difference(ids: number[], removed: unknown): number[] {
  const gone = new Set((removed as number[] | undefined) ?? []);
  return ids.filter((id) => !gone.has(id));
}
