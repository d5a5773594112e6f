/**
 * Feature-level gating (src/gateway/upstream/feature-level.ts): one GET /server_settings per gateway
 * instance, shared by concurrent requests, forgotten after a failure; UNSUPPORTED_BY_SERVER below
 * the level.
 */
import { describe, expect, it } from 'vitest';
import { contextFromCredentials } from '../../../src/gateway/context.js';
import { UpstreamServer } from '../../../src/gateway/upstream/server.js';
import { featureLevelOf, getFeatureLevel, requireFeatureLevel } from '../../../src/gateway/upstream/feature-level.js';
import type { FetchLike } from '../../../src/zulip/connection.js';
import { apiError, scriptedFetch, success } from '../../helpers/scripted-fetch.js';

let servers = 0;
const hamlet = { email: 'hamlet@zulip.example.com', apiKey: 'k' };
const upstreamOn = (fetch: FetchLike, baseUrl = `http://fl-${++servers}.localhost`) => new UpstreamServer({ baseUrl, fetch });
const contextOn = (upstream: UpstreamServer) => contextFromCredentials(upstream, hamlet);

describe('feature level', () => {
  it('is read once per gateway, for concurrent and later requests alike, without credentials', async () => {
    const fetch = scriptedFetch([success({ service_feature_level: 372 })]);
    const upstream = upstreamOn(fetch);
    const levels = await Promise.all([1, 2, 3].map(() => getFeatureLevel(contextOn(upstream))));
    expect(levels).toEqual([372, 372, 372]);
    expect(await getFeatureLevel(contextOn(upstream))).toBe(372);
    expect(fetch.requests.map((r) => [r.path, r.basicAuth])).toEqual([['server_settings', undefined]]);
  });

  it('is counted by the request that fetched it, and free for the others', async () => {
    const upstream = upstreamOn(scriptedFetch([success({ service_feature_level: 372 })]));
    const [first, second] = [contextOn(upstream), contextOn(upstream)];
    await getFeatureLevel(first);
    await getFeatureLevel(second);
    expect([first.upstream.requests, second.upstream.requests]).toEqual([1, 0]);
  });

  it('is not shared between gateway instances, even on the same server', async () => {
    const fetch = scriptedFetch([success({ service_feature_level: 100 }), success({ service_feature_level: 200 })]);
    const baseUrl = `http://fl-${++servers}.localhost`;
    expect(await getFeatureLevel(contextOn(upstreamOn(fetch, baseUrl)))).toBe(100);
    expect(await getFeatureLevel(contextOn(upstreamOn(fetch, baseUrl)))).toBe(200);
  });

  it('is fetched again after a failure', async () => {
    const upstream = upstreamOn(scriptedFetch([apiError('BAD_REQUEST', 'nope'), success({ service_feature_level: 301 })]));
    await expect(getFeatureLevel(contextOn(upstream))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await getFeatureLevel(contextOn(upstream))).toBe(301);
  });

  it('is fetched again after forget()', async () => {
    const upstream = upstreamOn(scriptedFetch([success({ service_feature_level: 300 }), success({ service_feature_level: 301 })]));
    expect(await getFeatureLevel(contextOn(upstream))).toBe(300);
    upstream.featureLevel.forget();
    expect(await getFeatureLevel(contextOn(upstream))).toBe(301);
  });

  it('counts a missing value as 0 and reads the name servers in the wild use', () => {
    expect(featureLevelOf({})).toBe(0);
    expect(featureLevelOf({ zulip_feature_level: 250 })).toBe(250);
    expect(featureLevelOf({ service_feature_level: 372, zulip_feature_level: 1 })).toBe(372);
  });

  it('gates with UNSUPPORTED_BY_SERVER, naming the level', async () => {
    const fetch = scriptedFetch([success({ service_feature_level: 299 })]);
    const ctx = contextOn(upstreamOn(fetch));
    await expect(requireFeatureLevel(ctx, 299, 'Anything')).resolves.toBeUndefined();
    await expect(requireFeatureLevel(ctx, 300, 'Loading messages by ID')).rejects.toMatchObject({
      message: 'Loading messages by ID needs a chat server with feature level 300 or newer; this one has feature level 299.',
      extensions: { code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 300, featureLevel: 299 },
    });
  });
});
