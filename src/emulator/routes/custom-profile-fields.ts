/**
 * Custom profile fields: `GET`/`POST`/`PATCH /realm/profile_fields`
 * (https://zulip.com/api/get-custom-profile-fields, create-custom-profile-field,
 * reorder-custom-profile-fields) and the caller's values, `PATCH`/`DELETE /users/me/profile_data`
 * (https://zulip.com/api/update-profile-data, remove-profile-data), with the
 * `custom_profile_fields` and `realm_user` events. The fields themselves live in
 * users/profile-fields.ts (the register state reads them there).
 *
 * As in Zulip (zerver/views/custom_profile_fields.py): field changes need an administrator; a label
 * is trimmed, not blank, at most 40 characters and unique, a hint at most 80; a list of options needs
 * one; at most 2 fields in the profile summary, never long text or users fields; a reorder must name
 * every field; bots cannot change their values; a field not editable by users needs an administrator.
 */
import { requireRealmAdmin, activeUserIds } from '../admin.js';
import type { Route, RouteContext } from '../context.js';
import { badRequest, missingArgument } from '../errors.js';
import type { CustomProfileField } from '../store.js';
import { FIELD_TYPE_NAMES, USER_FIELD_TYPE, customProfileFields } from './users/profile-fields.js';
import { applyProfileChange, readProfileData } from './users/update.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
const MAX_SUMMARY_FIELDS = 2;
const SELECT = 3;
const LONG_TEXT = 2;
const EXTERNAL_ACCOUNT = 7;
/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS: a field of these subtypes takes its label and hint from here. */
const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string }> = {
  github: { name: 'GitHub', hint: 'Enter your GitHub username' },
  twitter: { name: 'Twitter', hint: 'Enter your Twitter username' },
};

function sortedFields(ctx: RouteContext): CustomProfileField[] {
  return [...customProfileFields(ctx.store)].sort((a, b) => a.order - b.order);
}

function notifyFields(ctx: RouteContext): void {
  ctx.events.notify(activeUserIds(ctx.store), { type: 'custom_profile_fields', fields: structuredClone(sortedFields(ctx)) });
}

/** Zulip's human_users_only. */
function requireHuman(ctx: RouteContext): void {
  if (ctx.user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

function capped(name: string, value: string, limit: number): string {
  if (value.length > limit) throw badRequest(`${name} is too long (limit: ${limit} characters)`);
  return value;
}

/** `field_data`: a dict whose values are strings or dicts of strings (check_profile_field_data). */
function readFieldData(ctx: RouteContext): Record<string, unknown> {
  const data = ctx.params.optJson<unknown>('field_data') ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest('field_data is not a dict');
  return data as Record<string, unknown>;
}

function checkFieldData(type: number, data: Record<string, unknown>): void {
  if (type === SELECT) {
    if (Object.keys(data).length < 1) throw badRequest('Field must have at least one choice.');
    for (const [key, option] of Object.entries(data)) {
      const { text, order } = (option ?? {}) as Record<string, unknown>;
      if (typeof text !== 'string' || typeof order !== 'string') throw badRequest(`field_data["${key}"] is not a dict of text and order`);
      if (text === '') throw badRequest('Label cannot be blank.');
    }
  } else if (type === EXTERNAL_ACCOUNT) {
    const subtype = data.subtype;
    if (typeof subtype !== 'string') throw badRequest('subtype key is missing from field_data');
    if (subtype === 'custom') {
      if (typeof data.url_pattern !== 'string' || !data.url_pattern.includes('%(username)s')) {
        throw badRequest('Custom external account must define URL pattern');
      }
    } else if (!(subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
      throw badRequest('Invalid external account type');
    }
  }
}

/** https://zulip.com/api/create-custom-profile-field */
function create(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const { params } = ctx;
  const fields = customProfileFields(ctx.store);
  const type = params.json<unknown>('field_type');
  if (!Number.isSafeInteger(type)) throw badRequest('field_type is not an integer');
  const fieldType = type as number;
  const data = readFieldData(ctx);
  const summary = params.bool('display_in_profile_summary', false);
  if (summary && fields.filter((f) => f.display_in_profile_summary).length >= MAX_SUMMARY_FIELDS) {
    throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
  }
  checkFieldData(fieldType, data);
  const external = fieldType === EXTERNAL_ACCOUNT ? DEFAULT_EXTERNAL_ACCOUNTS[data.subtype as string] : undefined;
  const name = external?.name ?? (params.optStr('name') ?? '').trim();
  const hint = external?.hint ?? params.optStr('hint') ?? '';
  if (!external) {
    if (name === '') throw badRequest('Label cannot be blank.');
    capped('hint', hint, HINT_MAX_LENGTH);
    capped('name', name, NAME_MAX_LENGTH);
  }
  if (!(fieldType in FIELD_TYPE_NAMES)) throw badRequest('Invalid field type.');
  if (summary && (fieldType === LONG_TEXT || fieldType === USER_FIELD_TYPE)) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
  if (fields.some((f) => f.name === name)) throw badRequest('A field with that label already exists.');
  const id = Math.max(0, ...fields.map((f) => f.id)) + 1;
  fields.push({
    id,
    name,
    type: fieldType,
    hint,
    field_data: fieldType === SELECT || fieldType === EXTERNAL_ACCOUNT ? JSON.stringify(data) : '',
    order: Math.max(0, ...fields.map((f) => f.order)) + 1,
    required: params.bool('required', false),
    display_in_profile_summary: summary,
    editable_by_user: params.bool('editable_by_user', true),
  });
  notifyFields(ctx);
  return { id };
}

/** https://zulip.com/api/reorder-custom-profile-fields: every field must be named; extra IDs are ignored. */
function reorder(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const order = ctx.params.intArray('order');
  const position = new Map(order.map((id, index) => [id, index]));
  const fields = customProfileFields(ctx.store);
  if (fields.some((f) => !position.has(f.id))) throw badRequest('Invalid order mapping.');
  for (const field of fields) field.order = position.get(field.id)!;
  notifyFields(ctx);
  return {};
}

/** Zulip refuses a value change of a field users may not edit, unless the caller is an administrator. */
function requireEditable(ctx: RouteContext, field: CustomProfileField): void {
  if (field.editable_by_user === false && !ctx.store.isAdmin(ctx.user)) {
    throw badRequest('You are not allowed to change this field. Contact an administrator to update it.');
  }
}

/** https://zulip.com/api/update-profile-data */
function updateData(ctx: RouteContext): Record<string, unknown> {
  requireHuman(ctx);
  const changes = readProfileData(ctx, 'data');
  if (changes === undefined) throw missingArgument('data');
  for (const change of changes) requireEditable(ctx, change.field);
  for (const change of changes) applyProfileChange(ctx, ctx.user, change);
  return {};
}

/** https://zulip.com/api/remove-profile-data: a field without a value is no error. */
function removeData(ctx: RouteContext): Record<string, unknown> {
  requireHuman(ctx);
  const fields = customProfileFields(ctx.store);
  const ids = ctx.params.intArray('data');
  const targets = ids.map((id) => {
    const field = fields.find((f) => f.id === id);
    if (!field) throw badRequest(`Field id ${id} not found.`);
    requireEditable(ctx, field);
    return field;
  });
  for (const field of targets) applyProfileChange(ctx, ctx.user, { field, value: null });
  return {};
}

export const routes: Route[] = [
  { operation: ops.getCustomProfileFields, handler: (ctx) => ({ custom_fields: structuredClone(sortedFields(ctx)) }) },
  { operation: ops.createCustomProfileField, handler: create },
  { operation: ops.reorderCustomProfileFields, handler: reorder },
  { operation: ops.updateProfileData, handler: updateData },
  { operation: ops.removeProfileData, handler: removeData },
];
