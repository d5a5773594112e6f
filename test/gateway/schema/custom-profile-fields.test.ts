/**
 * Custom profile fields end to end: GraphQL → gateway → REST → emulator. The definitions query,
 * the link from a user's value to its definition (one call for all), the administrators' create and
 * reorder, the caller's values, their upstream calls, error codes and feature-level gates.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const HAMLET = demoUser('hamlet').email;
const OTHELLO = demoUser('othello').email;

function harness(featureLevel?: number) {
  const h = setupHarness(featureLevel === undefined ? {} : { emulatorSettings: { featureLevel } });
  return { h, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`).filter((c) => c !== 'GET server_settings') };
}

describe('custom profile fields', () => {
  it('lists the definitions in one call', async () => {
    const { h, calls } = harness();
    const { data, errors } = await h.gql('{ customProfileFields { zulipId name hint type order options { optionId } displayInProfileSummary required editableByUser } }', {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data?.customProfileFields).toEqual([
      { zulipId: 1, name: 'Biography', hint: 'What do you do?', type: 'LONG_TEXT', order: 1, options: [], displayInProfileSummary: true, required: false, editableByUser: true },
      { zulipId: 2, name: 'Phone number', hint: '', type: 'SHORT_TEXT', order: 2, options: [], displayInProfileSummary: true, required: false, editableByUser: true },
      { zulipId: 3, name: 'Birthday', hint: '', type: 'DATE', order: 3, options: [], displayInProfileSummary: false, required: false, editableByUser: true },
      { zulipId: 4, name: 'Website', hint: 'Your personal page', type: 'URL', order: 4, options: [], displayInProfileSummary: false, required: false, editableByUser: true },
    ]);
    expect(calls()).toEqual(['GET realm/profile_fields']);
  });

  it('links every user\u2019s values to their definitions with one call for all of them', async () => {
    const { h, calls } = harness();
    const { data, errors } = await h.gql<{ users: { profileData: { value: string; field: { name: string; type: string } }[] }[] }>(
      '{ users { profileData { value field { name type } } } }',
      {},
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.users.flatMap((u) => u.profileData)).toEqual([{ value: 'Prince of Denmark', field: { name: 'Biography', type: 'LONG_TEXT' } }]);
    expect(calls().filter((c) => c === 'GET realm/profile_fields')).toHaveLength(1);
  });

  it('creates a list-of-options field and returns it; members get UNAUTHORIZED_PRINCIPAL', async () => {
    const { h, calls } = harness();
    const created = await h.gql<{ createCustomProfileField: { fieldId: number; field: { name: string; options: { optionId: string; text: string }[] } } }>(
      'mutation ($data: JSON) { createCustomProfileField(name: "Team", type: SELECT, fieldData: $data) { fieldId field { name options { optionId text } } } }',
      { data: { b: { text: 'Blue', order: '2' }, a: { text: 'Red', order: '1' } } },
      { as: IAGO },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.createCustomProfileField.field).toEqual({ name: 'Team', options: [{ optionId: 'a', text: 'Red' }, { optionId: 'b', text: 'Blue' }] });
    expect(calls()).toEqual(['POST realm/profile_fields', 'GET realm/profile_fields']);
    const member = await h.gql('mutation { createCustomProfileField(name: "X", type: SHORT_TEXT) { fieldId } }', {}, { as: HAMLET });
    expect(member.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'create-custom-profile-field' } });
    const dup = await h.gql('mutation { createCustomProfileField(name: "Team", type: SHORT_TEXT) { fieldId } }', {}, { as: IAGO });
    expect(dup.errors?.[0]).toMatchObject({ message: 'A field with that label already exists.', extensions: { code: 'BAD_REQUEST' } });
  });

  it('reorders the fields in one call, the list only when selected', async () => {
    const { h, calls } = harness();
    const done = await h.gql('mutation { reorderCustomProfileFields(order: [4, 3, 2, 1]) { fields { zulipId } } }', {}, { as: IAGO });
    expect(done.data).toEqual({ reorderCustomProfileFields: { fields: [{ zulipId: 4 }, { zulipId: 3 }, { zulipId: 2 }, { zulipId: 1 }] } });
    expect(calls()).toEqual(['PATCH realm/profile_fields', 'GET realm/profile_fields']);
    const bad = await h.gql('mutation { reorderCustomProfileFields(order: [1]) { fields { zulipId } } }', {}, { as: IAGO });
    expect(bad.errors?.[0]).toMatchObject({ message: 'Invalid order mapping.', extensions: { code: 'BAD_REQUEST', route: 'reorder-custom-profile-fields' } });
  });

  it('sets and clears the caller\u2019s values, one call each', async () => {
    const { h, calls } = harness();
    const set = await h.gql(
      'mutation { updateProfileData(data: [{ fieldId: 2, value: "+1 555" }, { fieldId: 4, value: "https://example.com" }]) { __typename } }',
      {},
      { as: OTHELLO },
    );
    expect(set.errors).toBeUndefined();
    expect(calls()).toEqual(['PATCH users/me/profile_data']);
    expect(h.emulator.store.users.get(h.userId('othello'))!.profile_data).toMatchObject({ '2': { value: '+1 555' }, '4': { value: 'https://example.com' } });
    h.resetUpstreamRequests();
    const cleared = await h.gql<{ removeProfileData: { user: { profileData: { fieldId: number }[] } } }>(
      'mutation { removeProfileData(fieldIds: [2]) { user { profileData { fieldId } } } }',
      {},
      { as: OTHELLO },
    );
    expect(cleared.data!.removeProfileData.user.profileData).toEqual([{ fieldId: 4 }]);
    expect(calls()[0]).toBe('DELETE users/me/profile_data');
    const bad = await h.gql('mutation { updateProfileData(data: [{ fieldId: 3, value: "soon" }]) { __typename } }', {}, { as: OTHELLO });
    expect(bad.errors?.[0]).toMatchObject({ message: 'Birthday is not a date', extensions: { code: 'BAD_REQUEST', route: 'update-profile-data' } });
  });

  it('refuses bad input before any call', async () => {
    const { h, calls } = harness();
    for (const query of [
      'mutation { createCustomProfileField(name: " ", type: SHORT_TEXT) { fieldId } }',
      `mutation { createCustomProfileField(name: "${'x'.repeat(41)}", type: SHORT_TEXT) { fieldId } }`,
      'mutation { createCustomProfileField(name: "X", type: SELECT, fieldData: [1]) { fieldId } }',
      'mutation { reorderCustomProfileFields(order: [1, 1]) { __typename } }',
      'mutation { updateProfileData(data: [{ fieldId: 2 }]) { __typename } }',
      'mutation { updateProfileData(data: []) { __typename } }',
      'mutation { removeProfileData(fieldIds: []) { __typename } }',
    ]) {
      const { errors } = await h.gql(query, {}, { as: IAGO });
      expect(errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
    }
    expect(calls()).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER for an argument newer than the server', async () => {
    const { h, calls } = harness(295);
    const { errors } = await h.gql('mutation { createCustomProfileField(name: "X", type: SHORT_TEXT, editableByUser: false) { fieldId } }', {}, { as: IAGO });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 296, featureLevel: 295 });
    expect(calls()).toEqual([]);
  });
});
