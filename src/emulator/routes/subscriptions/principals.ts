/** Reading subscription requests: who they are about, which channels they name, and their colors. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest } from '../../errors.js';
import type { Channel, User } from '../../store.js';

// ---- principals ----------------------------------------------------------------------------------

/**
 * The `principals` parameter: user IDs (feature level 9) or API emails, never mixed. An unknown
 * or deactivated user is 400 BAD_REQUEST since feature level 208, 403 UNAUTHORIZED_PRINCIPAL before.
 * Undefined when absent or empty (the caller acts on themself).
 */
export function readPrincipals(ctx: RouteContext): User[] | undefined {
  const raw = ctx.params.optJson<unknown>('principals');
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw badRequest('principals is not a list');
  if (raw.length === 0) return undefined;
  const ints = raw.every((p) => Number.isSafeInteger(p));
  const strings = raw.every((p) => typeof p === 'string');
  if (!ints && !strings) throw badRequest('principals is not a list of user IDs or emails');
  // TODO(server-3): principalIds (9); drop the older branch once every supported server has it.
  if (ints && ctx.settings.featureLevel < featureLevels.principalIds) throw badRequest('principals[0] is not a string');
  const users = new Map<number, User>();
  for (const p of raw as (number | string)[]) {
    const user = typeof p === 'number' ? ctx.store.userById(p) : ctx.store.userByEmail(p);
    if (!user || !user.is_active) {
      // TODO(server-8): principalsBadRequest (208); drop the older branch once every supported server has it.
      if (ctx.settings.featureLevel < featureLevels.principalsBadRequest) {
        throw new ApiError('UNAUTHORIZED_PRINCIPAL', `User not authorized to execute queries on behalf of '${p}'`, 403, {
          principal: p,
        });
      }
      throw badRequest(user ? 'User is deactivated' : 'No such user');
    }
    users.set(user.user_id, user);
  }
  return [...users.values()];
}

export function readStringList(ctx: RouteContext, name: string): string[] {
  const raw = ctx.params.json<unknown>(name);
  if (!Array.isArray(raw)) throw badRequest(`${name} is not a list`);
  raw.forEach((v, i) => {
    if (typeof v !== 'string') throw badRequest(`${name}[${i}] is not a string`);
  });
  return raw as string[];
}

/** Before feature level 362 archived channels' subscriptions cannot change: they count as absent. */
export function usableChannel(ctx: RouteContext, channel: Channel | undefined): Channel | undefined {
  // TODO(server-10): archivedChannelEdits (362); drop the older branch once every supported server has it.
  if (!channel || (channel.is_archived && ctx.settings.featureLevel < featureLevels.archivedChannelEdits)) return undefined;
  return channel;
}

/** A subscription color as Zulip accepts it. */
export const COLOR = /^#[0-9a-fA-F]{6}$/;

/** Appends `value` to the list under `key`. */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
