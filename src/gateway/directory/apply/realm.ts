/** `realm` events (https://zulip.com/api/get-events#realm-update): the kept realm keys follow them. */
import type { DirectoryData, DirectoryEvent } from '../data.js';

/** `realm/update` and `realm/update_dict`: only the kept keys change. */
export function applyRealmEvent(data: DirectoryData, event: DirectoryEvent): void {
  const changes: Record<string, unknown> =
    event.op === 'update' ? { [event.property as string]: event.value } : event.op === 'update_dict' ? ((event.data ?? {}) as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(changes)) {
    if (`realm_${key}` in data.realm) data.realm[`realm_${key}`] = value;
  }
}
