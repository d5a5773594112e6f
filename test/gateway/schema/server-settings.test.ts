/**
 * `serverSettings` end to end: GraphQL → gateway → REST → emulator (and, once, a real loopback
 * port), plus a scripted old server that omits most keys.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../../src/gateway/yoga.js';
import { createHarness } from '../../helpers/harness.js';
import { scriptedFetch, success } from '../../helpers/scripted-fetch.js';

const ALL_FIELDS = /* GraphQL */ `
  {
    serverSettings {
      featureLevel
      serviceFeatureLevel
      serviceVersion
      serviceMergeBase
      authenticationMethods { password dev email ldap remoteuser saml openidConnect github azuread gitlab apple google }
      externalAuthenticationMethods { name displayName displayIcon loginUrl signupUrl }
      pushNotificationsEnabled
      isIncompatible
      emailAuthEnabled
      requireEmailFormatUsernames
      realmUri
      realmUrl
      realmName
      realmIcon
      realmDescription
      realmWebPublicAccessEnabled
    }
  }
`;

interface SettingsData {
  serverSettings: Record<string, unknown> & { authenticationMethods: Record<string, boolean | null> };
}

describe('serverSettings', () => {
  const h = createHarness({ emulatorSettings: { featureLevel: 321, version: '10.2-test' } });
  afterAll(() => h.close());

  it('answers without credentials, from one unauthenticated upstream call', async () => {
    h.resetUpstreamRequests();
    const before = h.emulator.requests.length;
    const { data, errors, extensions } = await h.gql<SettingsData>(ALL_FIELDS, {}, { as: null });

    expect(errors).toBeUndefined();
    const settings = data!.serverSettings;
    expect(settings).toMatchObject({
      featureLevel: 321,
      serviceFeatureLevel: 321,
      serviceVersion: '10.2-test',
      serviceMergeBase: '',
      realmName: h.emulator.store.realm.name,
      realmUrl: h.zulipUrl,
      realmUri: h.zulipUrl,
      emailAuthEnabled: true,
      externalAuthenticationMethods: [],
    });
    expect(settings.realmDescription).toContain(h.emulator.store.realm.description);
    expect(settings.authenticationMethods).toMatchObject({ password: true, openidConnect: false });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET server_settings']);
    expect(extensions).toMatchObject({ upstreamRequests: 1 });
    expect(h.emulator.requests.slice(before)).toEqual([{ method: 'GET', path: '/server_settings', requestId: expect.any(String) }]);
  });

  it('does not send the caller credentials upstream, even when the caller has some', async () => {
    const before = h.emulator.requests.length;
    const { data } = await h.gql<SettingsData>('{ serverSettings { realmName } }');
    expect(data?.serverSettings.realmName).toBe(h.emulator.store.realm.name);
    expect(h.emulator.requests.slice(before).map((r) => r.email)).toEqual([undefined]);
  });

  it('is refused with an unusable Authorization header, public as it is (never taken as anonymous)', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<SettingsData>('{ serverSettings { featureLevel } }', {}, {
      as: null,
      headers: { authorization: 'Digest not-zulip' },
    });
    expect(data ?? null).toBeNull();
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('marks the deprecated REST fields as deprecated', async () => {
    const { data } = await h.gql<{ __type: { fields: { name: string; deprecationReason: string | null }[] } }>(
      '{ __type(name: "ServerSettings") { fields(includeDeprecated: true) { name deprecationReason } } }',
    );
    const deprecated = data!.__type.fields.filter((f) => f.deprecationReason).map((f) => f.name);
    expect(deprecated.sort()).toEqual(['authenticationMethods', 'realmUri']);
  });

  it('maps an upstream 5xx to UPSTREAM_UNAVAILABLE with the route and status', async () => {
    h.emulator.faults.inject('GET /server_settings', { status: 502, times: 3 });
    try {
      const { data, errors } = await h.gql('{ serverSettings { realmName } }', {}, { as: null });
      expect(data).toEqual({ serverSettings: null });
      expect(errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        httpStatus: 502,
        route: 'get-server-settings',
      });
      expect(errors?.[0]?.path).toEqual(['serverSettings']);
    } finally {
      h.emulator.faults.clear();
    }
  });
});

describe('serverSettings over a real loopback port', () => {
  const h = createHarness({ listen: true });
  afterAll(() => h.close());

  it('reaches the emulator through the default undici fetch', async () => {
    const { data, errors } = await h.gql<SettingsData>('{ serverSettings { realmUrl featureLevel } }', {}, { as: null });
    expect(errors).toBeUndefined();
    expect(h.zulipUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(data?.serverSettings).toEqual({ realmUrl: h.zulipUrl, featureLevel: h.emulator.settings.featureLevel });
  });
});

describe('serverSettings from a server that omits most keys', () => {
  it('reports feature level 0 and nulls for what is missing', async () => {
    const fetch = scriptedFetch([success({ realm_name: 'Old Org' })]);
    const gateway = createGateway({ zulipUrl: 'http://old-server.localhost', fetch, logging: false });
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ serverSettings { featureLevel serviceFeatureLevel serviceVersion realmName realmUrl externalAuthenticationMethods { name } } }' }),
    });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.serverSettings).toEqual({
      featureLevel: 0,
      serviceFeatureLevel: null,
      serviceVersion: null,
      realmName: 'Old Org',
      realmUrl: null,
      externalAuthenticationMethods: null,
    });
    expect(fetch.requests.map((r) => [r.path, r.basicAuth])).toEqual([['server_settings', undefined]]);
  });
});
