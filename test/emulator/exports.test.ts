/**
 * The emulator's data-export endpoints, driven through src/zulip/routes/exports.ts: administrators
 * only, the export type as each feature level reads and answers it, the weekly limit, the pending
 * state (the emulator builds no archive), the consent list and the `realm_export` event.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { exportRealm, getRealmExportConsents, getRealmExports } from '../../src/zulip/routes/exports.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

function setup(settings: Partial<EmulatorSettings> = {}) {
  return setupEmulator({ clock: new ManualClock(Date.UTC(2026, 0, 1)), eventTypes: ['realm_export'], settings });
}

describe('data exports', () => {
  it('records a pending export for an administrator, lists it, and tells administrators', async () => {
    const { as, userId, listen } = setup();
    const admins = await listen('desdemona');
    const { id } = await exportRealm(as('iago'), { exportType: 2 });
    const expected = {
      id,
      acting_user_id: userId('iago'),
      export_time: Date.UTC(2026, 0, 1) / 1000,
      deleted_timestamp: null,
      failed_timestamp: null,
      export_url: null,
      pending: true,
      export_type: 2,
    };
    expect((await getRealmExports(as('desdemona'))).exports).toEqual([expected]);
    expect(await admins()).toEqual([expect.objectContaining({ type: 'realm_export', exports: [expected] })]);
  });

  it('refuses non-administrators with UNAUTHORIZED_PRINCIPAL', async () => {
    const { as } = setup();
    for (const attempt of [exportRealm(as('shiva'), {}), getRealmExports(as('hamlet')), getRealmExportConsents(as('hamlet'))]) {
      const e = await caughtApiError(attempt);
      expect([e.code, e.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    }
  });

  it('allows five exports a week', async () => {
    const { as, clock } = setup();
    for (let i = 0; i < 5; i++) await exportRealm(as('iago'), {});
    const e = await caughtApiError(exportRealm(as('iago'), {}));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Exceeded rate limit.']);
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    await exportRealm(as('iago'), {});
  });

  it('reads and answers the export type as each level does', async () => {
    const old = setup({ featureLevel: featureLevels.exportType - 1 });
    await exportRealm(old.as('iago'), {});
    expect((await getRealmExports(old.as('iago'))).exports[0]).not.toHaveProperty('export_type');
    const named = setup({ featureLevel: featureLevels.exportTypeNames });
    await exportRealm(named.as('iago'), { exportType: 'full_with_consent' });
    expect((await getRealmExports(named.as('iago'))).exports[0]).toMatchObject({ export_type: 'full_with_consent' });
    const e = await caughtApiError(exportRealm(named.as('iago'), { exportType: 'full_without_consent' }));
    expect(e.code).toBe('BAD_REQUEST');
    named.store.realm.settings.owner_full_content_access = true;
    await exportRealm(named.as('desdemona'), { exportType: 'full_without_consent' });
    const numbered = setup();
    expect((await caughtApiError(exportRealm(numbered.as('iago'), { exportType: 'public' }))).code).toBe('BAD_REQUEST');
  });

  it('lists each active human\u2019s consent, with email visibility from 430, and is absent below 295', async () => {
    const { as, store, userId } = setup({ featureLevel: featureLevels.exportConsentEmailVisibility });
    store.users.get(userId('cordelia'))!.settings.allow_private_data_export = true;
    const { export_consents } = await getRealmExportConsents(as('iago'));
    expect(export_consents.find((c) => c.user_id === userId('cordelia'))).toEqual({ user_id: userId('cordelia'), consented: true, email_address_visibility: 3 });
    expect(export_consents.find((c) => c.user_id === userId('hamlet'))).toMatchObject({ consented: false });
    expect(export_consents.map((c) => c.user_id)).not.toContain(userId('lear'));
    expect(export_consents.map((c) => c.user_id)).not.toContain(userId('hamlet-bot'));
    const old = setup({ featureLevel: featureLevels.exportConsents - 1 });
    expect((await caughtApiError(getRealmExportConsents(old.as('iago')))).httpStatus).toBe(404);
  });
});
