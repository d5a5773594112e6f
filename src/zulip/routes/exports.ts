/**
 * Bindings for data exports of the organization (administrators only, else
 * UNAUTHORIZED_PRINCIPAL). https://zulip.com/help/export-your-organization
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/exports.js';
import type { ExportRealmResult, GetRealmExportConsentsResult, GetRealmExportsResult, RealmExportTypeCode, RealmExportTypeName } from '../model/exports.js';

/** The organization's data exports. https://zulip.com/api/get-realm-exports */
export const getRealmExports = (c: ZulipConnection, call?: SendOptions): Promise<GetRealmExportsResult> => ops.getRealmExports(c, {}, call);

/**
 * Starts a data export. `exportType` is a name from feature level 449; from 304 to 448 Zulip reads
 * it as `Json[int]` (1 public, 2 full with consent), whose text the table's raw encoding sends
 * unchanged; below 304 leave it out. https://zulip.com/api/export-realm
 */
export const exportRealm = (
  c: ZulipConnection,
  p: { readonly exportType?: RealmExportTypeName | RealmExportTypeCode },
  call?: SendOptions,
): Promise<ExportRealmResult> => ops.exportRealm(c, p as ops.ExportRealmParams, call);

/** Which users consent to exports of their private data (feature level 295). https://zulip.com/api/get-realm-export-consents */
export const getRealmExportConsents = (c: ZulipConnection, call?: SendOptions): Promise<GetRealmExportConsentsResult> =>
  ops.getRealmExportConsents(c, {}, call);
