/**
 * Data exports: `GET`/`POST /export/realm` and `GET /export/realm/consents`
 * (https://zulip.com/api/export-realm and neighbours), with the `realm_export` event.
 *
 * As in Zulip (zerver/views/realm_export.py): administrators only (UNAUTHORIZED_PRINCIPAL); at most
 * five exports in seven days ("Exceeded rate limit."); `export_type` from feature level 304, read as
 * `Json[int]` (1 public, 2 full with consent) until 448 and as a name from 449, which adds
 * `full_without_consent`; the consent list holds active human users, with their
 * `email_address_visibility` from 430 and not at all below 295 (404, like an unknown route).
 *
 * The emulator generates no archive. Zulip answers with the export's ID at once and builds the file
 * in a background worker, reporting it `pending` until then ("seconds to an hour"); the emulator's
 * worker never runs, so every export stays pending, with no `export_url`, which is a state Zulip's
 * clients must handle anyway. Zulip's size check (manual export for large organizations) does not
 * apply to the emulator's small ones.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { RealmExport, RealmExportTypeName } from '../../zulip/model/exports.js';
import { requireRealmAdmin } from '../admin.js';
import type { Route, RouteContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { StoredRealmExport } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's EXPORT_LIMIT per seven days. */
const EXPORT_LIMIT = 5;
const WEEK_SECONDS = 7 * 24 * 3600;
const TYPE_CODES: Record<number, RealmExportTypeName> = { 1: 'public', 2: 'full_with_consent' };
const TYPE_NAMES: readonly RealmExportTypeName[] = ['public', 'full_with_consent', 'full_without_consent'];

function readExportType(ctx: RouteContext): RealmExportTypeName {
  const level = ctx.settings.featureLevel;
  // TODO(server-10): exportType (304); drop the older branch once every supported server has it.
  if (level < featureLevels.exportType) return 'public';
  // TODO(server-12): exportTypeNames (449); drop the older branch once every supported server has it.
  if (level < featureLevels.exportTypeNames) {
    const code = ctx.params.optJson('export_type') ?? 1;
    const type = typeof code === 'number' ? TYPE_CODES[code] : undefined;
    if (type === undefined) throw badRequest('Invalid export_type');
    return type;
  }
  const name = ctx.params.optStr('export_type') ?? 'public';
  if (!TYPE_NAMES.includes(name as RealmExportTypeName)) throw badRequest('Invalid export_type');
  if (name === 'full_without_consent' && ctx.store.realm.settings.owner_full_content_access !== true) {
    // The wording is the emulator's: the API description names the requirement, not its error.
    throw badRequest('This organization does not allow full exports without member consent.');
  }
  return name as RealmExportTypeName;
}

function serialize(ctx: RouteContext, record: StoredRealmExport): RealmExport {
  const wire: RealmExport = {
    id: record.id,
    acting_user_id: record.acting_user_id,
    export_time: record.export_time,
    deleted_timestamp: null,
    failed_timestamp: null,
    export_url: null,
    pending: true,
  };
  const level = ctx.settings.featureLevel;
  // TODO(server-12): exportTypeNames (449); drop the older branch once every supported server has it.
  if (level >= featureLevels.exportTypeNames) wire.export_type = record.type;
  // TODO(server-10): exportType (304); drop the older branch once every supported server has it.
  else if (level >= featureLevels.exportType) wire.export_type = record.type === 'public' ? 1 : 2;
  return wire;
}

function exportsOf(ctx: RouteContext): RealmExport[] {
  return [...ctx.store.realmExports.values()].map((r) => serialize(ctx, r));
}

/** https://zulip.com/api/export-realm */
function exportRealm(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const type = readExportType(ctx);
  const now = ctx.clock.now() / 1000;
  const recent = [...ctx.store.realmExports.values()].filter((r) => r.export_time >= now - WEEK_SECONDS);
  if (recent.length >= EXPORT_LIMIT) throw badRequest('Exceeded rate limit.');
  const record: StoredRealmExport = { id: ctx.store.nextId('realm_export'), acting_user_id: ctx.user.user_id, export_time: now, type };
  ctx.store.realmExports.set(record.id, record);
  // Zulip's notify_realm_export: the organization's administrators see the pending export.
  const admins = [...ctx.store.users.values()].filter((u) => u.is_active && ctx.store.isAdmin(u)).map((u) => u.user_id);
  ctx.events.notify(admins, { type: 'realm_export', exports: exportsOf(ctx) });
  return { id: record.id };
}

/** https://zulip.com/api/get-realm-exports */
function getRealmExports(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  return { exports: exportsOf(ctx) };
}

/** https://zulip.com/api/get-realm-export-consents */
function getRealmExportConsents(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  // TODO(server-12): exportConsentEmailVisibility (430); drop the older branch once every supported server has it.
  const withVisibility = ctx.settings.featureLevel >= featureLevels.exportConsentEmailVisibility;
  const consents = [...ctx.store.users.values()]
    .filter((u) => u.is_active && !u.is_bot)
    .map((u) => ({
      user_id: u.user_id,
      consented: u.settings.allow_private_data_export === true,
      ...(withVisibility && { email_address_visibility: u.email_address_visibility }),
    }));
  return { export_consents: consents };
}

export const routes: Route[] = [
  { operation: ops.getRealmExports, handler: getRealmExports },
  { operation: ops.exportRealm, handler: exportRealm },
  { operation: ops.getRealmExportConsents, handler: getRealmExportConsents },
];
