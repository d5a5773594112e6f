/**
 * Wire types for the organization's custom profile fields
 * (https://zulip.com/api/get-custom-profile-fields), snake_case as sent.
 */

/**
 * Field types: 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users,
 * 7 external account, 8 pronouns (feature level 151).
 */
export type CustomProfileFieldType = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

/** One field, as `GET /realm/profile_fields`, the register state and `custom_profile_fields` events send it. */
export interface CustomProfileField {
  id: number;
  type: CustomProfileFieldType;
  /** Where the field shows in profiles, ascending. */
  order: number;
  name: string;
  hint: string;
  /**
   * JSON text: for a list of options, `{"<id>": {"text": ..., "order": ...}}`; for an external
   * account, `{"subtype": ..., "url_pattern"?: ...}`; empty for the other types.
   */
  field_data: string;
  /** Feature level 146. */
  display_in_profile_summary?: boolean;
  /** Feature level 244. */
  required?: boolean;
  /** Feature level 296: whether users may change their own value. */
  editable_by_user?: boolean;
}

/** `GET /realm/profile_fields` success body. */
export interface GetCustomProfileFieldsResult {
  custom_fields: CustomProfileField[];
}

/** `POST /realm/profile_fields` success body. */
export interface CreateCustomProfileFieldResult {
  id: number;
}
