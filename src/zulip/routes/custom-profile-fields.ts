/**
 * Bindings for the organization's custom profile fields and the caller's values for them, over
 * the generated operation table. Field changes need an administrator (UNAUTHORIZED_PRINCIPAL);
 * bots cannot change their own values. https://zulip.com/help/custom-profile-fields
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/custom-profile-fields.js';
import type { CreateCustomProfileFieldResult, GetCustomProfileFieldsResult } from '../model/custom-profile-fields.js';

/** The organization's fields, in display order. https://zulip.com/api/get-custom-profile-fields */
export const getCustomProfileFields = (c: ZulipConnection, call?: SendOptions): Promise<GetCustomProfileFieldsResult> =>
  ops.getCustomProfileFields(c, {}, call);

/** Adds a field (administrators). https://zulip.com/api/create-custom-profile-field */
export const createCustomProfileField = (
  c: ZulipConnection,
  p: ops.CreateCustomProfileFieldParams,
  call?: SendOptions,
): Promise<CreateCustomProfileFieldResult> => ops.createCustomProfileField(c, p, call);

/** Sets the display order: every field's ID, once (administrators). https://zulip.com/api/reorder-custom-profile-fields */
export const reorderCustomProfileFields = (c: ZulipConnection, p: ops.ReorderCustomProfileFieldsParams, call?: SendOptions): Promise<object> =>
  ops.reorderCustomProfileFields(c, p, call);

/** Sets the caller's values for some fields. https://zulip.com/api/update-profile-data */
export const updateProfileData = (c: ZulipConnection, p: ops.UpdateProfileDataParams, call?: SendOptions): Promise<object> =>
  ops.updateProfileData(c, p, call);

/** Clears the caller's values for some fields. https://zulip.com/api/remove-profile-data */
export const removeProfileData = (c: ZulipConnection, p: ops.RemoveProfileDataParams, call?: SendOptions): Promise<object> =>
  ops.removeProfileData(c, p, call);
