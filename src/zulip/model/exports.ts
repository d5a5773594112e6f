/**
 * Wire types for data exports of the organization (https://zulip.com/api/get-realm-exports),
 * snake_case as sent.
 */

/** How much an export holds, as the server names it from feature level 449. */
export type RealmExportTypeName = 'public' | 'full_with_consent' | 'full_without_consent';

/** The same as a number, from feature level 304 to 448: 1 public, 2 full with consent. */
export type RealmExportTypeCode = 1 | 2;

/** One data export, as `GET /export/realm` and the `realm_export` event give it. */
export interface RealmExport {
  id: number;
  /** The administrator who asked for it. */
  acting_user_id: number;
  /** When it was asked for, UNIX seconds (fractional). */
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  /** Where to download it; null while pending, after a failure, or once deleted. */
  export_url: string | null;
  /** Whether it is still being generated. */
  pending: boolean;
  /** Absent below feature level 304 (every export was public). */
  export_type?: RealmExportTypeName | RealmExportTypeCode;
}

/** `GET /export/realm` success body. */
export interface GetRealmExportsResult {
  exports: RealmExport[];
}

/** `POST /export/realm` success body; `id` from feature level 182. */
export interface ExportRealmResult {
  id?: number;
}

/** Whether one user lets administrators export their private data (feature level 295). */
export interface RealmExportConsent {
  user_id: number;
  consented: boolean;
  /** The user's email address visibility policy (feature level 430). */
  email_address_visibility?: number;
}

/** `GET /export/realm/consents` success body. */
export interface GetRealmExportConsentsResult {
  export_consents: RealmExportConsent[];
}
