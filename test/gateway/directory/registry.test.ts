/**
 * The registry's bounds and sharing: byte-identical objects and chunks are shared between
 * credentials (1,000 credentials of one organization cost at most twice one), the memory cap evicts
 * the least recently used directory, idle directories are dropped on an injected clock, and the
 * counters report it.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { generateLargeOrganization } from '../../../src/emulator/generate.js';
import { DirectoryRegistry, DIRECTORY_REGISTER_OPTIONS, snapshotFromRegister } from '../../../src/gateway/directory/index.js';
import { registerQueue } from '../../../src/zulip/routes/events.js';
import { setupEmulator } from '../../helpers/emulator.js';
import { feed } from './fixtures.js';

describe('sharing between credentials', () => {
  it('keeps 1,000 credentials of a 2,000-user organization within twice the memory of one', async () => {
    const t = setupEmulator({ seed: () => generateLargeOrganization({ users: 2000, channels: 50, messages: 500 }) });
    const member = [...t.store.users.values()].find((u) => u.role === 400 && u.is_active && !u.is_bot)!;
    const result = await registerQueue(t.as(member), DIRECTORY_REGISTER_OPTIONS);
    const snapshot = snapshotFromRegister(result);
    expect(snapshot.users.length).toBeGreaterThanOrEqual(2000);

    const text = JSON.stringify(result);
    const registry = new DirectoryRegistry();
    registry.open('credential-0').load(snapshot);
    const one = registry.estimatedBytes();
    // Credentials with the same view of the organization: a few with their own parse of the
    // response (shared by content), the rest with the same objects (the cheap path of a load).
    for (let i = 1; i < 5; i++) registry.open(`credential-${i}`).load(snapshotFromRegister(JSON.parse(text)));
    expect(registry.estimatedBytes()).toBeLessThan(one * 1.01);
    for (let i = 5; i < 1000; i++) registry.open(`credential-${i}`).load(snapshot);
    const thousand = registry.estimatedBytes();
    expect(thousand).toBeLessThanOrEqual(2 * one);
    const [first, last] = [registry.get('credential-0')!, registry.get('credential-999')!];
    const id = snapshot.users[10]!.user_id;
    expect(first.usersById([id])![0]).toBe(last.usersById([id])![0]);
    expect(registry.stats().intern.objects).toBe(registry.intern.stats().objects);
    registry.close();
    // Everything released with the last directory.
    expect(registry.stats()).toMatchObject({ bytes: 0, directories: 0, intern: { objects: 0, bytes: 0 }, chunks: { chunks: 0, bytes: 0 } });
  }, 60_000); // building the organization and its register state is most of it

  it('shares between real credentials only what the server sent byte for byte', async () => {
    const t = setupEmulator();
    const registry = new DirectoryRegistry();
    const admin = (await feed(registry, 'iago', t.as('iago'))).directory;
    const member = (await feed(registry, 'hamlet', t.as('hamlet'))).directory;
    const [othello, cordelia] = [t.userId('othello'), t.userId('cordelia')];
    expect(admin.usersById([othello])![0]).toBe(member.usersById([othello])![0]);
    expect(admin.usersById([cordelia])![0]!.delivery_email).not.toBeNull();
    expect(member.usersById([cordelia])![0]!.delivery_email).toBeNull();
    expect(registry.intern.refs(admin.usersById([cordelia])![0]!)).toBe(1);
  });
});

describe('bounds', () => {
  async function loaded(registry: DirectoryRegistry, keys: string[]) {
    const t = setupEmulator();
    const snapshot = snapshotFromRegister(await registerQueue(t.as('hamlet'), DIRECTORY_REGISTER_OPTIONS));
    const other = snapshotFromRegister(await registerQueue(t.as('iago'), DIRECTORY_REGISTER_OPTIONS));
    keys.forEach((key, i) => registry.open(key).load(i % 2 ? other : snapshot));
    return { snapshot, other };
  }

  it('evicts the least recently used directory when over the memory cap', async () => {
    const dropped: string[] = [];
    const probe = new DirectoryRegistry();
    await loaded(probe, ['a', 'b']);
    const twoViews = probe.estimatedBytes();
    // Room for the two views and a few directories' own parts, not for a third view.
    const registry = new DirectoryRegistry({ maxBytes: twoViews + 10_000, onDrop: (key, reason) => dropped.push(`${key}:${reason}`) });
    const { snapshot } = await loaded(registry, ['a', 'b']);
    registry.get('a'); // now b is the least recently used
    const t = setupEmulator();
    registry.open('c').load(snapshotFromRegister(await registerQueue(t.as('polonius'), DIRECTORY_REGISTER_OPTIONS)));
    expect(dropped).toEqual(['b:memory']);
    expect(registry.get('b')).toBeUndefined();
    expect(registry.get('a')!.ready).toBe(true);
    expect(registry.stats()).toMatchObject({ directories: 2, evictedMemory: 1 });
    expect(registry.estimatedBytes()).toBeLessThanOrEqual(twoViews + 10_000);
    expect(snapshot.users.length).toBeGreaterThan(0);
  });

  it('drops a directory idle for the configured time, and keeps one in use', async () => {
    const clock = new ManualClock(0);
    const dropped: string[] = [];
    const registry = new DirectoryRegistry({ clock, idleMs: 60_000, onDrop: (key, reason) => dropped.push(`${key}:${reason}`) });
    await loaded(registry, ['idle', 'busy']);
    registry.startSweeping(10_000);
    clock.advance(30_000);
    registry.get('busy');
    clock.advance(40_000); // idle: 70 s unused; busy: 40 s
    expect(dropped).toEqual(['idle:idle']);
    expect(registry.stats()).toMatchObject({ directories: 1, evictedIdle: 1 });
    registry.close();
    expect(dropped).toEqual(['idle:idle', 'busy:closed']);
  });

  it('counts hits, misses, loads and events', async () => {
    const t = setupEmulator();
    const registry = new DirectoryRegistry();
    const fed = await feed(registry, 'hamlet', t.as('hamlet'));
    fed.directory.usersById([1, 2, 3]);
    fed.directory.apply({ id: fed.directory.lastEventId + 1, type: 'stream', op: 'update', stream_id: t.channelId('general'), name: 'general', property: 'is_archived', value: true });
    expect(fed.directory.channelsById([t.channelId('general')])![0]!.is_archived).toBe(true);
    fed.directory.reset();
    fed.directory.allUsers();
    expect(registry.stats()).toMatchObject({ hits: 4, misses: 1, loads: 1, events: 1, invalidations: 1, directories: 1, readyDirectories: 0 });
  });
});
