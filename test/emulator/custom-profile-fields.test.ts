/**
 * The emulator's custom profile fields, driven through src/zulip/routes/custom-profile-fields.ts:
 * listing, creating (administrators; label, hint, options, summary limit), reordering, the
 * caller's values (set, clear, not for bots, fields users may not edit), and the events.
 */
import { describe, expect, it } from 'vitest';
import {
  createCustomProfileField,
  getCustomProfileFields,
  removeProfileData,
  reorderCustomProfileFields,
  updateProfileData,
} from '../../src/zulip/routes/custom-profile-fields.js';
import { getUser } from '../../src/zulip/routes/users.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

describe('custom profile fields', () => {
  it('lists the fields in order, to any user', async () => {
    const t = setupEmulator();
    const { custom_fields } = await getCustomProfileFields(t.as('polonius'));
    expect(custom_fields.map((f) => [f.id, f.name, f.type])).toEqual([
      [1, 'Biography', 2],
      [2, 'Phone number', 1],
      [3, 'Birthday', 4],
      [4, 'Website', 5],
    ]);
  });

  it('creates fields (administrators), with a custom_profile_fields event to everyone', async () => {
    const t = setupEmulator();
    const drain = await t.listen('hamlet', ['custom_profile_fields']);
    const { id } = await createCustomProfileField(t.as('iago'), {
      name: ' Team ', hint: 'Which team?', fieldType: 3, fieldData: { a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } },
    });
    const github = await createCustomProfileField(t.as('iago'), { fieldType: 7, fieldData: { subtype: 'github' } });
    const { custom_fields } = await getCustomProfileFields(t.as('hamlet'));
    expect(custom_fields.find((f) => f.id === id)).toMatchObject({ name: 'Team', hint: 'Which team?', type: 3, editable_by_user: true });
    expect(JSON.parse(custom_fields.find((f) => f.id === id)!.field_data)).toEqual({ a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } });
    expect(custom_fields.find((f) => f.id === github.id)).toMatchObject({ name: 'GitHub', type: 7 });
    const events = await drain();
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ type: 'custom_profile_fields', fields: expect.arrayContaining([expect.objectContaining({ id, name: 'Team' })]) });
  });

  it('refuses members and invalid fields with Zulip\u2019s messages', async () => {
    const t = setupEmulator();
    const member = await caughtApiError(createCustomProfileField(t.as('hamlet'), { name: 'X', fieldType: 1 }));
    expect([member.code, member.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    const cases: [Parameters<typeof createCustomProfileField>[1], string][] = [
      [{ name: '  ', fieldType: 1 }, 'Label cannot be blank.'],
      [{ name: 'x'.repeat(41), fieldType: 1 }, 'name is too long (limit: 40 characters)'],
      [{ name: 'X', hint: 'h'.repeat(81), fieldType: 1 }, 'hint is too long (limit: 80 characters)'],
      [{ name: 'X', fieldType: 99 }, 'Invalid field type.'],
      [{ name: 'X', fieldType: 3 }, 'Field must have at least one choice.'],
      [{ name: 'X', fieldType: 7, fieldData: { subtype: 'custom' } }, 'Custom external account must define URL pattern'],
      [{ name: 'Biography', fieldType: 1 }, 'A field with that label already exists.'],
      [{ name: 'X', fieldType: 1, displayInProfileSummary: true }, 'Only 2 custom profile fields can be displayed in the profile summary.'],
    ];
    for (const [params, message] of cases) {
      const e = await caughtApiError(createCustomProfileField(t.as('iago'), params));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
    }
    expect((await getCustomProfileFields(t.as('iago'))).custom_fields).toHaveLength(4);
  });

  it('reorders when every field is named, else "Invalid order mapping."', async () => {
    const t = setupEmulator();
    await reorderCustomProfileFields(t.as('iago'), { order: [4, 3, 2, 1] });
    expect((await getCustomProfileFields(t.as('hamlet'))).custom_fields.map((f) => f.id)).toEqual([4, 3, 2, 1]);
    const missing = await caughtApiError(reorderCustomProfileFields(t.as('iago'), { order: [1, 2] }));
    expect(missing.message).toBe('Invalid order mapping.');
    const member = await caughtApiError(reorderCustomProfileFields(t.as('hamlet'), { order: [1, 2, 3, 4] }));
    expect(member.code).toBe('UNAUTHORIZED_PRINCIPAL');
  });

  it('sets and clears the caller\u2019s values, with realm_user events', async () => {
    const t = setupEmulator();
    const othello = t.userId('othello');
    const drain = await t.listen('iago', ['realm_user']);
    await updateProfileData(t.as('othello'), { data: [{ id: 2, value: '+1 555' }, { id: 1, value: 'A **general**' }] });
    const read = async () => (await getUser(t.as('iago'), { userId: othello, includeCustomProfileFields: true })).user.profile_data;
    expect(await read()).toEqual({ '2': { value: '+1 555', rendered_value: '<p>+1 555</p>' }, '1': { value: 'A **general**', rendered_value: '<p>A <strong>general</strong></p>' } });
    await removeProfileData(t.as('othello'), { data: [2, 3] });
    expect(Object.keys((await read())!)).toEqual(['1']);
    expect((await drain()).map((e) => (e.person as { custom_profile_field: unknown }).custom_profile_field)).toEqual([
      { id: 2, value: '+1 555', rendered_value: '<p>+1 555</p>' },
      { id: 1, value: 'A **general**', rendered_value: '<p>A <strong>general</strong></p>' },
      { id: 2, value: null },
    ]);
  });

  it('refuses unknown fields, bad values, bots, and fields users may not edit', async () => {
    const t = setupEmulator();
    const unknown = await caughtApiError(updateProfileData(t.as('othello'), { data: [{ id: 99, value: 'x' }] }));
    expect(unknown.message).toBe('Field id 99 not found.');
    const date = await caughtApiError(updateProfileData(t.as('othello'), { data: [{ id: 3, value: 'soon' }] }));
    expect(date.message).toBe('Birthday is not a date');
    const removeUnknown = await caughtApiError(removeProfileData(t.as('othello'), { data: [99] }));
    expect(removeUnknown.message).toBe('Field id 99 not found.');
    const bot = [...t.store.users.values()].find((u) => u.is_bot)!;
    const byBot = await caughtApiError(updateProfileData(t.as(bot), { data: [{ id: 2, value: 'x' }] }));
    expect(byBot.message).toBe('This endpoint does not accept bot requests.');
    t.store.customProfileFields!.find((f) => f.id === 2)!.editable_by_user = false;
    const locked = await caughtApiError(updateProfileData(t.as('othello'), { data: [{ id: 2, value: 'x' }] }));
    expect(locked.message).toBe('You are not allowed to change this field. Contact an administrator to update it.');
    await updateProfileData(t.as('iago'), { data: [{ id: 2, value: 'x' }] });
    expect(t.store.users.get(t.userId('iago'))!.profile_data['2']).toMatchObject({ value: 'x' });
  });
});
