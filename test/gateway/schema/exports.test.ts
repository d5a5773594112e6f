/**
 * Data exports end to end: GraphQL → gateway → REST → emulator. The queries and the mutation, their
 * upstream calls, the export type as each feature level takes it, the server's codes, and
 * UNSUPPORTED_BY_SERVER below the levels the newer parts need.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const IAGO = { as: demoUser('iago').email };
const HAMLET = { as: demoUser('hamlet').email };

const EXPORT = 'mutation ($type: RealmExportType) { exportRealm(exportType: $type) { zulipId realmExport { id zulipId pending url exportType actingUser { fullName } } } }';

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  return { h, store: h.emulator.store, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

type Exported = { exportRealm: { zulipId: number; realmExport: { id: string; zulipId: number; pending: boolean; url: string | null; exportType: string | null; actingUser: { fullName: string } } } };

describe('data exports', () => {
  it('starts an export in one call and answers it pending, linked to its administrator, from one more', async () => {
    const { h, calls, store } = harness();
    const { data, errors } = await h.gql<Exported>(EXPORT, { type: 'FULL_WITH_CONSENT' }, IAGO);
    expect(errors).toBeUndefined();
    const id = data!.exportRealm.zulipId;
    expect(data!.exportRealm.realmExport).toEqual({
      id: encodeGlobalID('RealmExport', id),
      zulipId: id,
      pending: true,
      url: null,
      exportType: 'FULL_WITH_CONSENT',
      actingUser: { fullName: 'Iago' },
    });
    // The default level (372) reads the type as a number: the feature level is asked once; the administrator comes
    // through the users loader.
    expect(calls()).toEqual(['GET server_settings', 'POST export/realm', 'GET export/realm', 'GET users']);
    expect(store.realmExports.get(id)?.type).toBe('full_with_consent');
    h.resetUpstreamRequests();
    const listed = await h.gql('{ realmExports { zulipId exportType pending } }', {}, IAGO);
    expect(listed.data).toEqual({ realmExports: [{ zulipId: id, exportType: 'FULL_WITH_CONSENT', pending: true }] });
    expect(calls()).toEqual(['GET export/realm']);
  });

  it('sends the type as a name from feature level 449', async () => {
    const { h, store } = harness({ emulatorSettings: { featureLevel: 449 } });
    store.realm.settings.owner_full_content_access = true;
    const { data, errors } = await h.gql<Exported>(EXPORT, { type: 'FULL_WITHOUT_CONSENT' }, IAGO);
    expect(errors).toBeUndefined();
    expect(data!.exportRealm.realmExport.exportType).toBe('FULL_WITHOUT_CONSENT');
  });

  it('passes on UNAUTHORIZED_PRINCIPAL to a member and the weekly limit', async () => {
    const { h } = harness();
    for (const query of ['mutation { exportRealm { zulipId } }', '{ realmExports { zulipId } }']) {
      const { errors } = await h.gql(query, {}, HAMLET);
      expect(errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL' } });
    }
    for (let i = 0; i < 5; i++) expect((await h.gql('mutation { exportRealm { zulipId } }', {}, IAGO)).errors).toBeUndefined();
    const { errors } = await h.gql('mutation { exportRealm { zulipId } }', {}, IAGO);
    expect(errors?.[0]).toMatchObject({ message: 'Exceeded rate limit.', extensions: { code: 'BAD_REQUEST', route: 'export-realm' } });
  });

  it('lists consents in one call, linked to the users', async () => {
    const { h, calls, store } = harness();
    store.users.get(h.userId('cordelia'))!.settings.allow_private_data_export = true;
    const { data, errors } = await h.gql<{ realmExportConsents: { userId: number; consented: boolean; user: { fullName: string } }[] }>(
      '{ realmExportConsents { userId consented user { fullName } emailAddressVisibility } }',
      {},
      IAGO,
    );
    expect(errors).toBeUndefined();
    expect(data!.realmExportConsents.find((c) => c.userId === h.userId('cordelia'))).toEqual({
      userId: h.userId('cordelia'),
      consented: true,
      user: { fullName: 'Cordelia, Lear\u2019s daughter' },
      emailAddressVisibility: null,
    });
    expect(calls()).toEqual(['GET server_settings', 'GET export/realm/consents', 'GET users']);
  });
});

describe('feature levels', () => {
  it('answers UNSUPPORTED_BY_SERVER for consents below 295 and full exports below 304, before calling', async () => {
    const { h, calls } = harness({ emulatorSettings: { featureLevel: 294 } });
    for (const [query, required] of [
      ['{ realmExportConsents { userId } }', 295],
      ['mutation { exportRealm(exportType: FULL_WITH_CONSENT) { zulipId } }', 304],
      ['mutation { exportRealm(exportType: FULL_WITHOUT_CONSENT) { zulipId } }', 449],
    ] as const) {
      const { errors } = await h.gql(query, {}, IAGO);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: required, featureLevel: 294 });
    }
    expect(calls()).toEqual(['GET server_settings']);
  });

  it('leaves a PUBLIC type out below 304, where every export is public', async () => {
    const { h, store } = harness({ emulatorSettings: { featureLevel: 303 } });
    const { data, errors } = await h.gql<Exported>(EXPORT, { type: 'PUBLIC' }, IAGO);
    expect(errors).toBeUndefined();
    expect(data!.exportRealm.realmExport.exportType).toBeNull();
    expect([...store.realmExports.values()].map((e) => e.type)).toEqual(['public']);
  });
});
