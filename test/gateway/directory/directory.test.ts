/**
 * The live directory against the emulator: its state equals what the per-request path returns for
 * each credential (an administrator, a member, a guest with restricted access), events keep it
 * equal, a lost queue makes it untrusted until it is reloaded, and read-your-writes waits.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { DirectoryRegistry } from '../../../src/gateway/directory/index.js';
import { ZulipApiError } from '../../../src/zulip/errors.js';
import { archiveStream, updateStream } from '../../../src/zulip/routes/channels.js';
import { getEvents } from '../../../src/zulip/routes/events.js';
import { subscribe, unsubscribe, updateSubscriptionSettings } from '../../../src/zulip/routes/subscriptions.js';
import { updateUserGroupMembers } from '../../../src/zulip/routes/user-groups.js';
import { deactivateUser, updateUser } from '../../../src/zulip/routes/users.js';
import { caughtError, setupEmulator } from '../../helpers/emulator.js';
import { feed, fromDirectory, perRequest } from './fixtures.js';

/** Feature level 378+: register's `streams` keeps archived channels with the archived_channels capability. */
const FEATURE_LEVEL = 400;

function setup() {
  const t = setupEmulator({ settings: { featureLevel: FEATURE_LEVEL } });
  // Guests see only the users they share a channel or a conversation with.
  t.store.realm.settings.can_access_all_users_group = t.store.systemGroupId('role:members');
  const registry = new DirectoryRegistry();
  return { ...t, registry };
}

describe('loading', () => {
  it('gives each credential exactly what the per-request path gives it', async () => {
    const t = setup();
    for (const login of ['iago', 'hamlet', 'polonius']) {
      const { directory } = await feed(t.registry, login, t.as(login));
      const groups = login !== 'polonius';
      expect(fromDirectory(directory, groups), login).toEqual(await perRequest(t.as(login), groups));
    }
  });

  it('keeps real emails and restricted views per credential', async () => {
    const t = setup();
    const admin = (await feed(t.registry, 'iago', t.as('iago'))).directory;
    const member = (await feed(t.registry, 'hamlet', t.as('hamlet'))).directory;
    const guest = (await feed(t.registry, 'polonius', t.as('polonius'))).directory;
    const cordelia = t.userId('cordelia'); // email visible to administrators only
    expect(admin.usersById([cordelia])![0]!.delivery_email).toBe(`cordelia@${t.store.realm.host}`);
    expect(member.usersById([cordelia])![0]!.delivery_email).toBeNull();
    expect(guest.allUsers()!.length).toBeLessThan(admin.allUsers()!.length);
    const hidden = admin.allUsers()!.find((u) => guest.usersById([u.user_id])![0] === undefined)!;
    expect(hidden).toBeDefined();
    // The two views of one user are different objects: nothing is shared on an assumption.
    expect(admin.usersById([cordelia])![0]).not.toBe(member.usersById([cordelia])![0]);
  });

  it('reads the realm limits', async () => {
    const t = setup();
    const { directory } = await feed(t.registry, 'hamlet', t.as('hamlet'));
    expect(directory.realm()!.max_topic_length).toBe(t.emulator.settings.maxTopicLength);
  });
});

describe('events', () => {
  it('applies user, channel, subscription and group changes as the server states them', async () => {
    const t = setup();
    const admin = await feed(t.registry, 'iago', t.as('iago'));
    const member = await feed(t.registry, 'hamlet', t.as('hamlet'));
    const hamlet = t.userId('hamlet');
    const general = t.channelId('general');
    const iago = t.as('iago');

    await updateUser(iago, { userId: hamlet, fullName: 'Prince Hamlet' });
    await updateUser(iago, { userId: t.userId('othello'), role: 300 });
    await deactivateUser(iago, { userId: t.userId('cordelia') });
    await updateStream(iago, { streamId: general, newName: 'town square', description: 'All *hands*' });
    await subscribe(t.as('hamlet'), { subscriptions: [{ name: 'brand new' }] });
    await unsubscribe(t.as('hamlet'), { subscriptions: ['town square'] });
    const [groupId] = [...t.store.groups.values()].filter((g) => !g.is_system_group).map((g) => g.id);
    await updateUserGroupMembers(iago, { userGroupId: groupId!, add: [t.userId('polonius')] });

    // Not applied yet: the directory shows the state of its snapshot.
    expect(member.directory.usersById([hamlet])![0]!.full_name).toBe('King Hamlet');
    expect((await member.pump()).length).toBeGreaterThan(0);
    await admin.pump();

    expect(member.directory.usersById([hamlet])![0]!.full_name).toBe('Prince Hamlet');
    expect(member.directory.channelByName('TOWN SQUARE')!.stream_id).toBe(general);
    expect(member.directory.channelByName('general')).toBeNull();
    for (const fed of [admin, member]) {
      expect(fromDirectory(fed.directory)).toEqual(await perRequest(fed.connection));
    }
  });

  it('applies subscription settings and archiving', async () => {
    const t = setup();
    const member = await feed(t.registry, 'hamlet', t.as('hamlet'));
    const general = t.channelId('general');
    await updateSubscriptionSettings(t.as('hamlet'), { subscriptionData: [{ streamId: general, property: 'is_muted', value: true }] });
    await member.pump();
    expect(member.directory.subscriptionsById([general])![0]!.is_muted).toBe(true);
    expect(fromDirectory(member.directory)).toEqual(await perRequest(member.connection));

    // The emulator announces archiving with stream/delete (real servers from feature level 378 send
    // stream/update is_archived to queues with archived_channels): the channel leaves the directory.
    const design = t.channelId('design');
    await archiveStream(t.as('iago'), { streamId: design });
    await member.pump();
    expect(member.directory.channelsById([design])).toEqual([undefined]);
    expect(member.directory.subscriptionsById([design])).toEqual([undefined]);
  });

  it('copies on write: a credential that has not applied an event keeps its view', async () => {
    const t = setup();
    const one = await feed(t.registry, 'hamlet', t.as('hamlet'));
    const two = await feed(t.registry, 'othello', t.as('othello'));
    const iagoId = t.userId('iago');
    const before = two.directory.usersById([iagoId])![0]!;
    expect(one.directory.usersById([iagoId])![0]).toBe(before); // byte-identical, so shared
    await updateUser(t.as('iago'), { userId: iagoId, fullName: 'Iago the Ensign' });
    await one.pump();
    expect(one.directory.usersById([iagoId])![0]!.full_name).toBe('Iago the Ensign');
    expect(two.directory.usersById([iagoId])![0]).toBe(before);
    expect(before.full_name).toBe('Iago');
    await two.pump();
    // Both applied the same event: they converge on one shared object again.
    expect(two.directory.usersById([iagoId])![0]).toBe(one.directory.usersById([iagoId])![0]);
  });
});

describe('queue loss', () => {
  it('stops serving on BAD_EVENT_QUEUE_ID and serves the current state after the reload', async () => {
    const t = setup();
    const member = await feed(t.registry, 'hamlet', t.as('hamlet'));
    t.emulator.queues.expire(member.queueId);
    await updateUser(t.as('iago'), { userId: t.userId('hamlet'), fullName: 'Lost Prince' });
    const error = await caughtError(getEvents(member.connection, { queueId: member.queueId, lastEventId: -1, dontBlock: true }));
    expect(error).toBeInstanceOf(ZulipApiError);
    expect((error as ZulipApiError).code).toBe('BAD_EVENT_QUEUE_ID');

    member.directory.reset();
    const misses = t.registry.stats().misses;
    expect(member.directory.usersById([t.userId('hamlet')])).toBeUndefined();
    expect(t.registry.stats().misses).toBe(misses + 1);

    await member.reload();
    expect(member.directory.usersById([t.userId('hamlet')])![0]!.full_name).toBe('Lost Prince');
    expect(t.registry.stats()).toMatchObject({ loads: 1 + 1, reloads: 1 });
  });

  it('asks its owner for a reload after a restart event', async () => {
    const t = setup();
    const reasons: string[] = [];
    const registry = new DirectoryRegistry({ onInvalidate: (key, reason) => reasons.push(`${key}:${reason}`) });
    const member = await feed(registry, 'hamlet', t.as('hamlet'));
    member.directory.apply({ id: member.directory.lastEventId + 1, type: 'restart', zulip_feature_level: FEATURE_LEVEL + 1 });
    expect(member.directory.ready).toBe(false);
    expect(reasons).toEqual(['hamlet:restart']);
  });
});

describe('read-your-writes', () => {
  it('resolves when the event of the write has been applied', async () => {
    const t = setup();
    const member = await feed(t.registry, 'hamlet', t.as('hamlet'));
    const hamlet = t.userId('hamlet');
    await updateUser(t.as('iago'), { userId: hamlet, fullName: 'Sweet Prince' });
    const applied = member.directory.waitForEvent(
      (e) => e.type === 'realm_user' && (e.person as { user_id: number }).user_id === hamlet,
      2000,
    );
    await member.pump();
    expect(await applied).toBe('applied');
    expect(member.directory.usersById([hamlet])![0]!.full_name).toBe('Sweet Prince');
  });

  it('stops trusting the directory when the event does not come in time', async () => {
    const t = setup();
    const clock = new ManualClock(0);
    const registry = new DirectoryRegistry({ clock });
    const member = await feed(registry, 'hamlet', t.as('hamlet'));
    const waited = member.directory.waitForEvent(() => false, 1000);
    clock.advance(1000);
    expect(await waited).toBe('timeout');
    expect(member.directory.ready).toBe(false);
    expect(member.directory.allUsers()).toBeUndefined();
  });
});
