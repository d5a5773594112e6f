/** The organization's custom profile fields (https://zulip.com/api/get-custom-profile-fields). */
import type { Store } from '../../store.js';
import type { CustomProfileField } from '../../store.js';

// ---- custom profile fields ---------------------------------------------------------------------

export const FIELD_TYPE_NAMES: Record<number, string> = {
  1: 'SHORT_TEXT',
  2: 'LONG_TEXT',
  3: 'SELECT',
  4: 'DATE',
  5: 'URL',
  6: 'USER',
  7: 'EXTERNAL_ACCOUNT',
  8: 'PRONOUNS',
};

/** The users field type: its value is a list of user IDs. */
export const USER_FIELD_TYPE = 6;

/** Field types whose values are Markdown, so they carry `rendered_value`. */
export const RENDERED_FIELD_TYPES = new Set([1, 2]);

/** The organization's custom profile fields (the demo set unless a test replaced it). */
export function customProfileFields(store: Store): CustomProfileField[] {
  let fields = store.customProfileFields;
  if (!fields) {
    const field = (id: number, name: string, type: number, hint: string): CustomProfileField => ({
      id, name, type, hint, field_data: '', order: id, required: false, display_in_profile_summary: id <= 2, editable_by_user: true,
    });
    fields = [
      field(1, 'Biography', 2, 'What do you do?'),
      field(2, 'Phone number', 1, ''),
      field(3, 'Birthday', 4, ''),
      field(4, 'Website', 5, 'Your personal page'),
    ];
    store.customProfileFields = fields;
  }
  return fields;
}
