/**
 * The chat server's feature level (api-spec.md, Versioning): an integer that rises with every API
 * change, read from `GET /server_settings`. Fields that need a newer server than the one behind
 * the gateway fail with `UNSUPPORTED_BY_SERVER` instead of with a confusing upstream error.
 */
import { GraphQLError } from 'graphql';
import type { ZulipConnection } from '../zulip/connection.js';
import type { ServerSettings } from '../zulip/model/server-settings.js';
import { getServerSettings } from '../zulip/routes/server-settings.js';
import { GatewayErrorCode } from './errors.js';

// One entry per upstream server for the life of the process. Server settings are public (the
// endpoint takes no credentials), so sharing across callers leaks nothing. The promise is cached
// so concurrent first requests make one call; a failure is dropped so the next request retries.
// A server upgraded while the gateway runs is seen after a restart.
const featureLevels = new Map<string, Promise<number>>();

/** The feature level a server-settings response reports; missing means 0. */
export function featureLevelOf(settings: ServerSettings): number {
  // The spec's name first; `zulip_feature_level` is what servers in the wild send.
  return settings.service_feature_level ?? settings.zulip_feature_level ?? 0;
}

/** The feature level of the server behind `connection`, fetched once per server. */
export function getFeatureLevel(connection: ZulipConnection): Promise<number> {
  const cached = featureLevels.get(connection.baseUrl);
  if (cached) return cached;
  const anonymous = connection.credentials ? connection.withCredentials(undefined) : connection;
  const level = getServerSettings(anonymous).then(featureLevelOf);
  featureLevels.set(connection.baseUrl, level);
  level.catch(() => {
    if (featureLevels.get(connection.baseUrl) === level) featureLevels.delete(connection.baseUrl);
  });
  return level;
}

/** Forgets the cached level of one server (or all), e.g. after it was upgraded. */
export function forgetFeatureLevel(baseUrl?: string): void {
  if (baseUrl === undefined) featureLevels.clear();
  else featureLevels.delete(baseUrl.replace(/\/+$/, ''));
}

/**
 * Throws `UNSUPPORTED_BY_SERVER` unless the server supports feature level `level`.
 * @param what what needs it, for the message, e.g. "Loading messages by ID".
 */
export async function requireFeatureLevel(
  ctx: { anonymousConnection: ZulipConnection },
  level: number,
  what: string,
): Promise<void> {
  const current = await getFeatureLevel(ctx.anonymousConnection);
  if (current >= level) return;
  throw new GraphQLError(
    `${what} needs a chat server with feature level ${level} or newer; this one has feature level ${current}.`,
    { extensions: { code: GatewayErrorCode.unsupportedByServer, requiredFeatureLevel: level, featureLevel: current } },
  );
}
