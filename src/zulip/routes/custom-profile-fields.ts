/**
 * Bindings for the organization's custom profile fields and the caller's values for them, over
 * the generated operation table. Field changes need an administrator (UNAUTHORIZED_PRINCIPAL);
 * bots cannot change their own values. https://zulip.com/help/custom-profile-fields
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/custom-profile-fields.js';
import type { CreateCustomProfileFieldResult, GetCustomProfileFieldsResult } from '../model/custom-profile-fields.js';
import { callOperation } from '../operation.js';

/** The organization's fields, in display order. https://zulip.com/api/get-custom-profile-fields */
export const getCustomProfileFields = (c: ZulipConnection, call?: SendOptions): Promise<GetCustomProfileFieldsResult> =>
  callOperation(c, ops.getCustomProfileFields, {}, call);

/** Adds a field (administrators). https://zulip.com/api/create-custom-profile-field */
export const createCustomProfileField = (
  c: ZulipConnection,
  p: ops.CreateCustomProfileFieldParams,
  call?: SendOptions,
): Promise<CreateCustomProfileFieldResult> => callOperation(c, ops.createCustomProfileField, p, call);

/** Sets the display order: every field's ID, once (administrators). https://zulip.com/api/reorder-custom-profile-fields */
export const reorderCustomProfileFields = (c: ZulipConnection, p: ops.ReorderCustomProfileFieldsParams, call?: SendOptions): Promise<object> =>
  callOperation(c, ops.reorderCustomProfileFields, p, call);

/** Sets the caller's values for some fields. https://zulip.com/api/update-profile-data */
export const updateProfileData = (c: ZulipConnection, p: ops.UpdateProfileDataParams, call?: SendOptions): Promise<object> =>
  callOperation(c, ops.updateProfileData, p, call);

/** Clears the caller's values for some fields. https://zulip.com/api/remove-profile-data */
export const removeProfileData = (c: ZulipConnection, p: ops.RemoveProfileDataParams, call?: SendOptions): Promise<object> =>
  callOperation(c, ops.removeProfileData, p, call);
