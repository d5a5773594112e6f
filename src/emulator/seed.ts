/**
 * The demo organization: deterministic users (every role, a guest, a bot with an owner, a deactivated
 * user, one with a hidden email), channels (public, private with protected history, web-public,
 * archived, a moderation-request channel), topics (one resolved, one empty), messages with reactions,
 * edits, mentions and Markdown, direct messages, user groups with subgroups, drafts, scheduled
 * messages, presence and topic visibility preferences. Ids and API keys are stable across runs.
 */
import { addChannel, addGroup, addUser, apiKeyFor, createStore, insertMessage, subscribe } from './factory.js';
import { Role, type Store } from './store.js';

export interface DemoUser {
  email: string;
  apiKey: string;
  fullName: string;
  role: number;
}

const HOST = 'zulip.example.com';

const USERS = [
  { full_name: 'Desdemona', login: 'desdemona', role: Role.OWNER },
  { full_name: 'Iago', login: 'iago', role: Role.ADMINISTRATOR },
  { full_name: 'Shiva', login: 'shiva', role: Role.MODERATOR },
  { full_name: 'King Hamlet', login: 'hamlet', role: Role.MEMBER },
  { full_name: 'Cordelia, Lear\u2019s daughter', login: 'cordelia', role: Role.MEMBER, email_address_visibility: 3 },
  { full_name: 'Othello, the Moor of Venice', login: 'othello', role: Role.MEMBER },
  { full_name: 'Polonius', login: 'polonius', role: Role.GUEST },
  { full_name: 'King Lear', login: 'lear', role: Role.MEMBER, is_active: false },
] as const;

/** Credentials of the active human demo users, owner first (Authorization: Basic email:apiKey). */
export const DEMO_USERS: DemoUser[] = USERS.filter((u) => !('is_active' in u)).map((u) => ({
  email: `${u.login}@${HOST}`,
  apiKey: apiKeyFor(`${u.login}@${HOST}`),
  fullName: u.full_name,
  role: u.role,
}));

/** Looks up a demo user's credentials by login name (`'hamlet'`) for tests and examples. */
export function demoUser(login: string): DemoUser {
  const u = DEMO_USERS.find((d) => d.email.startsWith(`${login}@`));
  if (!u) throw new Error(`no active demo user ${login}`);
  return u;
}

/** Only the realm, its system groups and one owner. */
export function seedEmpty(nowMs: number): Store {
  const store = createStore(nowMs);
  addUser(store, { full_name: 'Desdemona', delivery_email: `desdemona@${HOST}`, role: Role.OWNER }, nowMs);
  return store;
}

export function seedDemo(nowMs: number): Store {
  const store = createStore(nowMs);
  const now = Math.floor(nowMs / 1000);
  const ids: Record<string, number> = {};
  for (const u of USERS) {
    const { login, ...rest } = u;
    ids[login] = addUser(store, { ...rest, delivery_email: `${login}@${HOST}` }, nowMs).user_id;
  }
  ids.bot = addUser(
    store,
    { full_name: 'Hamlet Bot', delivery_email: `hamlet-bot@${HOST}`, is_bot: true, bot_type: 1, bot_owner_id: ids.hamlet! },
    nowMs,
  ).user_id;
  store.users.get(ids.hamlet!)!.profile_data = { '1': { value: 'Prince of Denmark', rendered_value: '<p>Prince of Denmark</p>' } };
  store.users.get(ids.iago!)!.timezone = 'Europe/Rome';
  // The server-level permission of https://zulip.com/api/create-user, granted by a management command.
  store.users.get(ids.desdemona!)!.can_create_users = true;

  const humans = ['desdemona', 'iago', 'shiva', 'hamlet', 'cordelia', 'othello'].map((l) => ids[l]!);
  const admins = store.systemGroupId('role:administrators');
  const general = addChannel(store, { name: 'general', description: 'For **everything**', creator_id: ids.desdemona! }, nowMs);
  const design = addChannel(store, { name: 'design', description: 'Colors, shapes and *fonts*', creator_id: ids.cordelia! }, nowMs);
  const engineering = addChannel(
    store,
    { name: 'engineering', description: 'Private: release plans', invite_only: true, history_public_to_subscribers: false, creator_id: ids.iago! },
    nowMs,
  );
  const announce = addChannel(
    store,
    { name: 'announce', description: 'Announcements for everyone, even without an account', is_web_public: true, can_send_message_group: admins, creator_id: ids.desdemona! },
    nowMs,
  );
  const legacy = addChannel(store, { name: 'legacy', description: 'Archived channel', creator_id: null }, nowMs);
  const moderation = addChannel(
    store,
    { name: 'moderation requests', description: 'Reports for moderators', invite_only: true, is_moderation_request_channel: true },
    nowMs,
  );
  store.realm.settings.moderation_request_channel_id = moderation.stream_id;
  store.defaultChannelIds.add(general.stream_id);
  store.defaultChannelIds.add(announce.stream_id);

  for (const u of [...humans, ids.polonius!, ids.bot!]) subscribe(store, general.stream_id, u);
  for (const u of [...humans, ids.polonius!]) subscribe(store, design.stream_id, u);
  for (const u of [ids.desdemona!, ids.iago!, ids.shiva!, ids.hamlet!]) subscribe(store, engineering.stream_id, u);
  for (const u of humans) subscribe(store, announce.stream_id, u);
  for (const u of [ids.desdemona!, ids.othello!, ids.lear!]) subscribe(store, legacy.stream_id, u);
  for (const u of [ids.desdemona!, ids.iago!, ids.shiva!]) subscribe(store, moderation.stream_id, u);

  const leadership = addGroup(store, { name: 'leadership', description: 'Owners and admins of the realm', members: [ids.desdemona!, ids.iago!], creator_id: ids.desdemona! }, nowMs);
  addGroup(
    store,
    { name: 'engineers', description: 'Everyone who ships code', members: [ids.hamlet!, ids.shiva!], direct_subgroup_ids: [leadership.id], creator_id: ids.iago! },
    nowMs,
  );
  addGroup(store, { name: 'players', description: 'The cast', members: [ids.hamlet!, ids.cordelia!, ids.othello!, ids.polonius!], creator_id: ids.hamlet! }, nowMs);

  const say = (sender: string, content: string, minutesAgo: number, where: { channel?: number; topic?: string; to?: string[] }) =>
    insertMessage(store, {
      sender_id: ids[sender]!,
      stream_id: where.channel,
      topic: where.topic,
      to_user_ids: where.to?.map((l) => ids[l]!),
      content,
      timestamp: now - minutesAgo * 60,
    });

  const g = { channel: general.stream_id, topic: 'greetings' };
  const welcome = say('desdemona', 'Welcome to **Zulip Dev**! Say hi in this topic.', 3000, g);
  welcome.reactions.push(
    { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: ids.hamlet! },
    { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: ids.iago! },
    { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji', user_id: ids.cordelia! },
  );
  say('hamlet', 'Hi @**Desdemona**, glad to be here. To be or not to be?', 2990, g);
  say('iago', 'Our style guide:\n\n```ts\nconst answer = 42;\n```\n\nSee https://zulip.com/api for the API.', 2980, g);
  const deploy = { channel: general.stream_id, topic: '✔ deploy failure' };
  say('shiva', 'The deploy to production failed at step 3.', 2000, deploy);
  say('iago', 'Fixed in [the rollback](https://example.com/pr/1), marking resolved.', 1990, deploy);
  say('othello', 'A message in the empty topic.', 1500, { channel: general.stream_id, topic: '' });
  const colors = say('cordelia', 'I like *teal* and **orange**.', 1000, { channel: design.stream_id, topic: 'colors' });
  colors.edit_history.unshift({ user_id: ids.cordelia!, timestamp: colors.timestamp + 60, prev_content: 'I like teal.', prev_rendered_content: '<p>I like teal.</p>' });
  colors.last_edit_timestamp = colors.timestamp + 60;
  say('hamlet', 'What about @*players*? Our palette should fit the stage.', 990, { channel: design.stream_id, topic: 'colors' });
  say('iago', 'Release plan: ship **v2** on Friday.', 800, { channel: engineering.stream_id, topic: 'release plan' });
  say('shiva', 'Checklist:\n\n- [x] tests\n- [ ] docs', 790, { channel: engineering.stream_id, topic: 'release plan' });
  say('desdemona', 'We launch next week, @**all**!', 600, { channel: announce.stream_id, topic: 'launch' });
  say('othello', 'Old stuff nobody reads.', 5000, { channel: legacy.stream_id, topic: 'old topic' });
  say('hamlet', 'Can you review my PR?', 300, { to: ['iago'] });
  say('iago', 'Sure, looking now.', 290, { to: ['hamlet'] });
  say('hamlet', 'Planning the play rehearsal.', 200, { to: ['iago', 'cordelia'] });
  say('hamlet', 'Recent thought in greetings.', 5, g);
  legacy.is_archived = true;

  for (const u of humans) store.setFlag(u, welcome.id, 'read', true);
  store.setFlag(ids.hamlet!, welcome.id, 'starred', true);

  const hamletDrafts = new Map([[1, { id: 1, type: 'stream' as const, to: [general.stream_id], topic: 'greetings', content: 'Draft: thank everyone', timestamp: now - 100 }]]);
  store.drafts.set(ids.hamlet!, hamletDrafts);
  store.reserveId('draft', 1);
  store.scheduledMessages.set(1, {
    scheduled_message_id: 1, sender_id: ids.hamlet!, type: 'stream', to: general.stream_id, topic: 'greetings',
    content: 'Good morning, everyone!', rendered_content: '<p>Good morning, everyone!</p>', scheduled_delivery_timestamp: now + 86400, failed: false,
  });
  store.scheduledMessages.set(2, {
    scheduled_message_id: 2, sender_id: ids.hamlet!, type: 'private', to: [ids.iago!], topic: '',
    content: 'Reminder: review', rendered_content: '<p>Reminder: review</p>', scheduled_delivery_timestamp: now - 3600, failed: true,
  });
  store.reserveId('scheduled', 2);

  for (const [login, idleMinutes] of [['iago', 0], ['hamlet', 1], ['cordelia', 30]] as const) {
    const t = now - idleMinutes * 60;
    store.presence.set(ids[login]!, {
      active_timestamp: t, idle_timestamp: t, last_update_id: ++store.presenceLastUpdateId,
      clients: { website: { status: idleMinutes > 10 ? 'idle' : 'active', timestamp: t } },
    });
  }

  store.userTopics.set(ids.hamlet!, new Map([
    [store.userTopicKey(general.stream_id, 'greetings'), { stream_id: general.stream_id, topic_name: 'greetings', visibility_policy: 3, last_updated: now - 500 }],
    [store.userTopicKey(design.stream_id, 'colors'), { stream_id: design.stream_id, topic_name: 'colors', visibility_policy: 1, last_updated: now - 400 }],
  ]));
  return store;
}
