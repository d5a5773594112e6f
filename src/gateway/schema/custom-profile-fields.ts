/**
 * Custom profile fields: the organization's field definitions (`customProfileFields`, the
 * administrators' `createCustomProfileField` and `reorderCustomProfileFields`), the caller's own
 * values (`updateProfileData`, `removeProfileData`), and `ProfileDataEntry.field`, which links a
 * user's value to its definition. https://zulip.com/help/custom-profile-fields
 *
 * The definitions are read at most once per request (one `GET /realm/profile_fields`).
 */
import type { CustomProfileField, CustomProfileFieldType } from '../../zulip/model/custom-profile-fields.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import {
  createCustomProfileField,
  getCustomProfileFields,
  removeProfileData,
  reorderCustomProfileFields,
  updateProfileData,
} from '../../zulip/routes/custom-profile-fields.js';
import { getOwnUser } from '../../zulip/routes/users.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { memoKey } from '../loaders/index.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';
import { ProfileDataEntryRef, UserRef, freshUser } from './users.js';

const FieldTypeEnum = builder.enumType('CustomProfileFieldType', {
  description: 'The kind of value a custom profile field holds.',
  values: {
    SHORT_TEXT: { value: 1, description: 'Short text (1), Markdown.' },
    LONG_TEXT: { value: 2, description: 'Long text (2), Markdown.' },
    SELECT: { value: 3, description: 'One choice from a list of options (3).' },
    DATE: { value: 4, description: 'A date (4), `YYYY-MM-DD`.' },
    URL: { value: 5, description: 'A link (5).' },
    USER: { value: 6, description: 'A list of users (6).' },
    EXTERNAL_ACCOUNT: { value: 7, description: 'A username on an external service (7), e.g. GitHub.' },
    PRONOUNS: { value: 8, description: 'Pronouns (8; feature level 151).' },
  } as const,
});

interface SelectOption {
  id: string;
  text: string;
  order: number;
}

const SelectOptionRef = builder.objectRef<SelectOption>('CustomProfileFieldOption').implement({
  description: 'One option of a list-of-options custom profile field.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The option\u2019s key: the value a user holds when choosing it.' }),
    text: t.exposeString('text', { description: 'The option\u2019s label.' }),
    order: t.exposeInt('order', { description: 'Where the option shows, ascending.' }),
  }),
});

function parseFieldData(field: CustomProfileField): Record<string, unknown> {
  if (field.field_data === '') return {};
  try {
    const data: unknown = JSON.parse(field.field_data);
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const CustomProfileFieldRef = builder.objectRef<CustomProfileField>('CustomProfileField').implement({
  description: 'A custom profile field of the organization. https://zulip.com/api/get-custom-profile-fields',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The field ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (f) => f.id }),
    name: t.exposeString('name', { description: 'The field\u2019s label.' }),
    hint: t.exposeString('hint', { description: 'Help text shown with the field; empty when none.' }),
    type: t.field({ type: FieldTypeEnum, description: 'The kind of value it holds.', resolve: (f) => f.type }),
    order: t.exposeInt('order', { description: 'Where the field shows in profiles, ascending.' }),
    fieldData: t.field({
      type: 'JSON',
      description: 'The type\u2019s extra data as Zulip sends it (options, or the external account\u2019s subtype and URL pattern); {} when none.',
      resolve: parseFieldData,
    }),
    options: t.field({
      type: [SelectOptionRef],
      description: 'The options of a list-of-options field, in order; empty for other types.',
      resolve: (f) => {
        if (f.type !== 3) return [];
        return Object.entries(parseFieldData(f))
          .map(([id, o]) => {
            const option = (o ?? {}) as { text?: unknown; order?: unknown };
            return { id, text: String(option.text ?? ''), order: Number(option.order ?? 0) };
          })
          .sort((a, b) => a.order - b.order);
      },
    }),
    displayInProfileSummary: t.boolean({
      description: 'Whether it shows in the profile summary (feature level 146; false before).',
      resolve: (f) => f.display_in_profile_summary ?? false,
    }),
    required: t.boolean({ description: 'Whether users must fill it in (feature level 244; false before).', resolve: (f) => f.required ?? false }),
    editableByUser: t.boolean({
      description: 'Whether users may change their own value (feature level 296; true before).',
      resolve: (f) => f.editable_by_user ?? true,
    }),
  }),
});

const fieldsKey = memoKey<Map<number, CustomProfileField>>('custom profile fields');

/** The organization's fields by ID, fetched at most once per request. */
function fieldsById(ctx: Context): Promise<Map<number, CustomProfileField>> {
  return ctx.loaders.memo.get(fieldsKey, () =>
    getCustomProfileFields(ctx.connection).then(({ custom_fields }) => new Map(custom_fields.map((f) => [f.id, f]))),
  );
}

asNode(CustomProfileFieldRef, { key: (f) => f.id, load: fromList(async (ctx) => [...(await fieldsById(ctx)).values()], (f) => f.id, 'custom profile field') });

builder.objectField(ProfileDataEntryRef, 'field', (t) =>
  t.field({
    type: CustomProfileFieldRef,
    nullable: true,
    description: 'The field\u2019s definition (one call per request for all of them); null if it was deleted meanwhile.',
    resolve: async (entry, _args, ctx) => (await fieldsById(ctx)).get(entry.field_id) ?? null,
  }),
);

builder.objectField(ProfileDataEntryRef, 'users', (t) =>
  t.field({
    type: [UserRef],
    description: 'For a users field, the users its value names (through the user loader); empty for other fields.',
    resolve: async (entry, _args, ctx) => {
      let ids: unknown;
      try {
        ids = JSON.parse(entry.value);
      } catch {
        return [];
      }
      if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) return [];
      const users = await ctx.loaders.users.loadMany(ids as number[]);
      return users.filter((u): u is Exclude<typeof u, Error> => !(u instanceof Error));
    },
  }),
);

builder.queryField('customProfileFields', (t) =>
  t.field({
    extensions: reaches('get-custom-profile-fields'),
    type: [CustomProfileFieldRef],
    description: 'The organization\u2019s custom profile fields, in display order.',
    resolve: async (_root, _args, ctx) => [...(await fieldsById(ctx)).values()].sort((a, b) => a.order - b.order),
  }),
);

// ---- mutations -----------------------------------------------------------------------------------

const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;

const CustomProfileFieldPayloadRef = builder.objectRef<{ id: number }>('CreateCustomProfileFieldPayload').implement({
  description: 'A custom profile field that was created.',
  fields: (t) => ({
    fieldId: t.field({ type: 'Long', description: 'The new field\u2019s ID.', resolve: (p) => p.id }),
    field: t.field({
      type: CustomProfileFieldRef,
      nullable: true,
      description: 'The new field as the server holds it (one more call, only when selected).',
      resolve: async (p, _args, ctx) => (await fieldsById(ctx)).get(p.id) ?? null,
    }),
  }),
});

const CustomProfileFieldsPayloadRef = builder.objectRef<object>('CustomProfileFieldsPayload').implement({
  description: 'The organization\u2019s custom profile fields after a change.',
  fields: (t) => ({
    fields: t.field({
      type: [CustomProfileFieldRef],
      description: 'Every field, in the new order (one more call, only when selected).',
      resolve: async (_p, _args, ctx) => [...(await fieldsById(ctx)).values()].sort((a, b) => a.order - b.order),
    }),
  }),
});

/** Optional create arguments newer than some servers, each refused below its level. */
async function requireLevels(ctx: Context, args: { displayInProfileSummary?: boolean | null; required?: boolean | null; editableByUser?: boolean | null; useForUserMatching?: boolean | null }) {
  if (args.displayInProfileSummary != null) await requireFeatureLevel(ctx, featureLevels.customProfileFieldSummary, 'displayInProfileSummary');
  if (args.required != null) await requireFeatureLevel(ctx, featureLevels.requiredCustomProfileFields, 'Required custom profile fields');
  if (args.editableByUser != null) await requireFeatureLevel(ctx, featureLevels.customProfileFieldEditableByUser, 'editableByUser');
  if (args.useForUserMatching != null) await requireFeatureLevel(ctx, featureLevels.customProfileFieldUserMatching, 'useForUserMatching');
}

builder.mutationField('createCustomProfileField', (t) =>
  t.field({
    extensions: reaches('create-custom-profile-field'),
    type: CustomProfileFieldPayloadRef,
    description:
      'Adds a custom profile field (administrators, else UNAUTHORIZED_PRINCIPAL). An external account field of a known ' +
      'subtype (e.g. `{"subtype": "github"}`) takes its label and hint from the server. A used label, a list without ' +
      'options or a third summary field are BAD_REQUEST.',
    args: {
      name: t.arg.string({ required: false, description: `The label (trimmed; at most ${NAME_MAX_LENGTH} characters).` }),
      hint: t.arg.string({ required: false, description: `Help text (at most ${HINT_MAX_LENGTH} characters).` }),
      type: t.arg({ type: FieldTypeEnum, required: true, description: 'The kind of value.' }),
      fieldData: t.arg({ type: 'JSON', required: false, description: 'Options of a SELECT field, or the subtype (and URL pattern) of an EXTERNAL_ACCOUNT one.' }),
      displayInProfileSummary: t.arg.boolean({ required: false, description: `Show it in the profile summary (feature level ${featureLevels.customProfileFieldSummary}).` }),
      required: t.arg.boolean({ required: false, description: `Users must fill it in (feature level ${featureLevels.requiredCustomProfileFields}).` }),
      editableByUser: t.arg.boolean({ required: false, description: `Users may change their own value (feature level ${featureLevels.customProfileFieldEditableByUser}).` }),
      useForUserMatching: t.arg.boolean({ required: false, description: `Use it when matching users in typeahead (feature level ${featureLevels.customProfileFieldUserMatching}).` }),
    },
    resolve: async (_root, args, ctx) => {
      const name = args.name?.trim();
      if (name !== undefined && name.length > NAME_MAX_LENGTH) throw badInput(`name is too long (limit: ${NAME_MAX_LENGTH} characters).`, { argument: 'name' });
      if (args.hint != null && args.hint.length > HINT_MAX_LENGTH) throw badInput(`hint is too long (limit: ${HINT_MAX_LENGTH} characters).`, { argument: 'hint' });
      const data = args.fieldData;
      if (data != null && (typeof data !== 'object' || Array.isArray(data))) throw badInput('fieldData must be an object.', { argument: 'fieldData' });
      if ((args.type as CustomProfileFieldType) !== 7 && (name === undefined || name === '')) throw badInput('name must not be blank.', { argument: 'name' });
      await requireLevels(ctx, args);
      const { id } = await createCustomProfileField(ctx.connection, {
        fieldType: args.type,
        ...(name !== undefined && { name }),
        ...(args.hint != null && { hint: args.hint }),
        ...(data != null && { fieldData: data as Record<string, unknown> }),
        ...(args.displayInProfileSummary != null && { displayInProfileSummary: args.displayInProfileSummary }),
        ...(args.required != null && { required: args.required }),
        ...(args.editableByUser != null && { editableByUser: args.editableByUser }),
        ...(args.useForUserMatching != null && { useForUserMatching: args.useForUserMatching }),
      });
      return { id };
    },
  }),
);

builder.mutationField('reorderCustomProfileFields', (t) =>
  t.field({
    extensions: reaches('reorder-custom-profile-fields'),
    type: CustomProfileFieldsPayloadRef,
    description: 'Sets the display order of the fields (administrators). Every field must be listed, else BAD_REQUEST "Invalid order mapping.".',
    args: { order: t.arg({ type: ['Long'], required: true, description: 'Every field ID, in the new order.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.order.length === 0) throw badInput('order must list the fields.', { argument: 'order' });
      if (new Set(args.order).size !== args.order.length) throw badInput('order lists a field twice.', { argument: 'order' });
      await reorderCustomProfileFields(ctx.connection, { order: args.order });
      return {};
    },
  }),
);

const ProfileValueInput = builder.inputType('ProfileValueInput', {
  description: 'The caller\u2019s new value for one custom profile field: `value`, or `userIds` for a users field.',
  fields: (t) => ({
    fieldId: t.field({ type: 'Long', required: true, description: 'The field.' }),
    value: t.string({ required: false, description: 'The new text value; empty clears it.' }),
    userIds: t.field({ type: ['Long'], required: false, description: 'For a users field: the users it names.' }),
  }),
});

const ProfileDataPayloadRef = builder.objectRef<object>('ProfileDataPayload').implement({
  description: 'The caller\u2019s custom profile field values were changed.',
  fields: (t) => ({
    user: t.field({
      type: UserRef,
      description: 'The caller, with the new values (two more calls, only when selected).',
      resolve: async (_p, _args, ctx) => freshUser(ctx, (await getOwnUser(ctx.connection)).user_id),
    }),
  }),
});

builder.mutationField('updateProfileData', (t) =>
  t.field({
    extensions: reaches('update-profile-data'),
    type: ProfileDataPayloadRef,
    description:
      'Sets the caller\u2019s values for some custom profile fields. Bots cannot; a field users may not edit needs an ' +
      'administrator; an unknown field or an invalid value is BAD_REQUEST.',
    args: { data: t.arg({ type: [ProfileValueInput], required: true, description: 'The new values.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.data.length === 0) throw badInput('data must not be empty.', { argument: 'data' });
      const data = args.data.map((d) => {
        if ((d.value == null) === (d.userIds == null)) throw badInput('data: give exactly one of value or userIds per field.', { argument: 'data' });
        return { id: d.fieldId, value: d.userIds ?? d.value! };
      });
      await updateProfileData(ctx.connection, { data });
      return {};
    },
  }),
);

builder.mutationField('removeProfileData', (t) =>
  t.field({
    extensions: reaches('remove-profile-data'),
    type: ProfileDataPayloadRef,
    description: 'Clears the caller\u2019s values for some custom profile fields (no error for a field without a value).',
    args: { fieldIds: t.arg({ type: ['Long'], required: true, description: 'The fields to clear.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.fieldIds.length === 0) throw badInput('fieldIds must not be empty.', { argument: 'fieldIds' });
      await removeProfileData(ctx.connection, { data: args.fieldIds });
      return {};
    },
  }),
);
