/**
 * The chat server's feature level (https://zulip.com/api/changelog): an integer that rises with
 * every API change, read from `GET /server_settings`. Fields that need a newer server than the one
 * behind the gateway fail with `UNSUPPORTED_BY_SERVER` instead of with a confusing upstream error.
 * The levels themselves are named in src/zulip/feature-levels.ts.
 */
import type { ZulipConnection } from '../../zulip/connection.js';
import type { ServerSettings } from '../../zulip/model/server-settings.js';
import { getServerSettings } from '../../zulip/routes/server-settings.js';
import { unsupportedByServer } from '../errors.js';
import type { UpstreamServer } from './server.js';

/**
 * Where the level comes from: the gateway's shared value (one per gateway instance, see
 * `UpstreamServer`) and a connection to fetch it through the first time (its credentials are
 * dropped; the request counts it).
 */
export interface FeatureLevelSource {
  anonymousConnection: ZulipConnection;
  server: Pick<UpstreamServer, 'featureLevel'>;
}

/** The feature level a server-settings response reports; missing means 0. */
export function featureLevelOf(settings: ServerSettings): number {
  // The spec's name first; `zulip_feature_level` is what servers in the wild send.
  return settings.service_feature_level ?? settings.zulip_feature_level ?? 0;
}

/**
 * The feature level of the chat server, fetched once per gateway instance. Server settings are
 * public (the endpoint takes no credentials), so sharing the value across callers leaks nothing.
 * A server upgraded while the gateway runs is seen after a restart (or `featureLevel.forget()`).
 */
export function getFeatureLevel(source: FeatureLevelSource): Promise<number> {
  return source.server.featureLevel.get(() => {
    const connection = source.anonymousConnection;
    const anonymous = connection.credentials ? connection.withCredentials(undefined) : connection;
    return getServerSettings(anonymous).then(featureLevelOf);
  });
}

/**
 * Throws `UNSUPPORTED_BY_SERVER` unless the server supports feature level `level`.
 * @param what what needs it, for the message, e.g. "Loading messages by ID".
 */
export async function requireFeatureLevel(source: FeatureLevelSource, level: number, what: string): Promise<void> {
  const current = await getFeatureLevel(source);
  if (current >= level) return;
  throw unsupportedByServer(what, level, current);
}
