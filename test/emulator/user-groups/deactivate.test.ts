/**
 * The emulator's user group deactivation (https://zulip.com/api/deactivate-user-group, feature level
 * 290), driven through src/zulip/routes/user-groups.ts: who may, the objections of a group in use
 * (CANNOT_DEACTIVATE_GROUP_IN_USE from feature level 298), the `user_group` event and the gate.
 */
import { describe, expect, it } from 'vitest';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { deactivateUserGroup, getUserGroups } from '../../../src/zulip/routes/user-groups.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

function setup(featureLevel: number = featureLevels.deactivateUserGroup) {
  const t = setupEmulator({ settings: { featureLevel } });
  return { ...t, group: (name: string) => t.store.groupByName(name)! };
}

describe('deactivate user group', () => {
  it('deactivates a group its manager may manage, with a user_group update event', async () => {
    const t = setup();
    const players = t.group('players');
    const drain = await t.listen('othello', ['user_group']);
    await deactivateUserGroup(t.as('hamlet'), { userGroupId: players.id });
    expect(players.deactivated).toBe(true);
    expect((await getUserGroups(t.as('othello'))).user_groups.map((g) => g.name)).not.toContain('players');
    expect(await drain()).toMatchObject([{ type: 'user_group', op: 'update', group_id: players.id, data: { deactivated: true } }]);
    const again = await caughtApiError(deactivateUserGroup(t.as('hamlet'), { userGroupId: players.id }));
    expect(again.message).toBe('User group is deactivated.');
  });

  it('refuses others, system groups and unknown groups', async () => {
    const t = setup();
    const players = t.group('players');
    const other = await caughtApiError(deactivateUserGroup(t.as('othello'), { userGroupId: players.id }));
    expect([other.code, other.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    const system = await caughtApiError(deactivateUserGroup(t.as('desdemona'), { userGroupId: t.group('role:members').id }));
    expect(system.message).toBe('Insufficient permission');
    const unknown = await caughtApiError(deactivateUserGroup(t.as('desdemona'), { userGroupId: 9999 }));
    expect(unknown.message).toBe('Invalid user group');
    const guest = await caughtApiError(deactivateUserGroup(t.as('polonius'), { userGroupId: players.id }));
    expect(guest.message).toBe('Not allowed for guest users');
    expect(players.deactivated).toBe(false);
  });

  it('refuses a group in use with its objections: CANNOT_DEACTIVATE_GROUP_IN_USE, BAD_REQUEST before 298', async () => {
    const t = setup(featureLevels.groupInUseCode);
    const leadership = t.group('leadership');
    t.store.realm.settings.can_create_web_public_channel_group = leadership.id;
    const e = await caughtApiError(deactivateUserGroup(t.as('desdemona'), { userGroupId: leadership.id }));
    expect([e.code, e.message]).toEqual(['CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.']);
    expect((e.data as { objections: unknown }).objections).toEqual([
      { type: 'realm', settings: ['can_create_web_public_channel_group'] },
      { type: 'supergroup', supergroup_ids: [t.group('engineers').id] },
    ]);
    const old = setup(featureLevels.groupInUseCode - 1);
    const before = await caughtApiError(deactivateUserGroup(old.as('desdemona'), { userGroupId: old.group('leadership').id }));
    expect([before.code, before.message]).toEqual(['BAD_REQUEST', 'Cannot deactivate user group in use.']);
    expect(leadership.deactivated).toBe(false);
  });

  it('is Not Found below feature level 290', async () => {
    const t = setup(featureLevels.deactivateUserGroup - 1);
    const e = await caughtApiError(deactivateUserGroup(t.as('hamlet'), { userGroupId: t.group('players').id }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});
