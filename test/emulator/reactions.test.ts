/**
 * Emoji reactions through the REST client: adding (by name, by code, voting for another user's
 * emoji), removing, Zulip's errors, and the `reaction` events, which reach the users who received
 * the message (and the reacting user) and nobody else.
 */
import { describe, expect, it } from 'vitest';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import { getMessage } from '../../src/zulip/routes/messages.js';
import { addReaction, removeReaction } from '../../src/zulip/routes/reactions.js';
import { caughtApiError, eventsOf, registerEventQueue, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { raw, type WireParams } from '../../src/zulip/params.js';

type Body = Record<string, any>;

const registerQueue = (conn: ZulipConnection) => registerEventQueue(conn, ['reaction']);

const pollEvents = (conn: ZulipConnection, queueId: string) => eventsOf<Body>(conn, queueId, { keepIds: true, validate: true });

describe('POST /messages/{id}/reactions', () => {
  it('adds a reaction by name and tells the message\'s recipients', async () => {
    const t = setupEmulator();
    const release = t.messageWith('Release plan'); // engineering: desdemona, iago, shiva, hamlet
    const hamlet = t.as('hamlet');
    const queues = { iago: await registerQueue(t.as('iago')), othello: await registerQueue(t.as('othello')), hamlet: await registerQueue(hamlet) };
    const body = await addReaction(hamlet, { messageId: release.id, emojiName: 'octopus' });
    expect(validateResponse({ method: 'post', path: `/messages/${release.id}/reactions` }, 200, body).errors).toBe('');
    const hamletUser = t.user('hamlet');
    expect(release.reactions).toEqual([{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: hamletUser.user_id }]);
    const expected = {
      type: 'reaction',
      op: 'add',
      message_id: release.id,
      emoji_name: 'octopus',
      emoji_code: '1f419',
      reaction_type: 'unicode_emoji',
      user_id: hamletUser.user_id,
      user: { user_id: hamletUser.user_id, email: hamletUser.email, full_name: 'King Hamlet' },
    };
    expect(await pollEvents(t.as('iago'), queues.iago)).toEqual([{ id: 0, ...expected }]);
    expect(await pollEvents(hamlet, queues.hamlet)).toEqual([{ id: 0, ...expected }]);
    expect(await pollEvents(t.as('othello'), queues.othello)).toEqual([]);
    const { message } = await getMessage(hamlet, { messageId: release.id });
    expect(message.reactions).toEqual([{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: hamletUser.user_id }]);
  });

  it('reaches a non-subscriber who reacts through public history', async () => {
    const t = setupEmulator();
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!; // not in design
    const colors = t.messageWith('I like *teal*');
    const conn = t.as(bot);
    const q = await registerQueue(conn);
    await addReaction(conn, { messageId: colors.id, emojiName: 'heart' });
    expect((await pollEvents(conn, q)).map((e) => [e.op, e.emoji_code])).toEqual([['add', '2764']]);
  });

  it('votes for an existing emoji by code, keeping its name', async () => {
    const t = setupEmulator();
    const welcome = t.messageWith('Welcome to'); // +1 from hamlet and iago, tada from cordelia
    await addReaction(t.as('othello'), { messageId: welcome.id, emojiName: 'thumbs_up', emojiCode: '1f44d', reactionType: 'unicode_emoji' });
    expect(welcome.reactions.at(-1)).toEqual({ emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: t.user('othello').user_id });
    await addReaction(t.as('othello'), { messageId: welcome.id, emojiName: 'zulip', emojiCode: 'zulip', reactionType: 'zulip_extra_emoji' });
    expect(welcome.reactions.at(-1)).toMatchObject({ emoji_name: 'zulip', reaction_type: 'zulip_extra_emoji' });
    // The spec's name for the same namespace: the same emoji, so a duplicate.
    const dup = await caughtApiError(t.as('othello').request('x', 'POST', `messages/${welcome.id}/reactions`, { emoji_name: raw('zulip'), emoji_code: raw('zulip'), reaction_type: raw('service_extra_emoji') }));
    expect(dup.code).toBe('REACTION_ALREADY_EXISTS');
    await t.as('shiva').request('x', 'POST', `messages/${welcome.id}/reactions`, { emoji_name: raw('zulip'), emoji_code: raw('zulip'), reaction_type: raw('service_extra_emoji') });
    expect(welcome.reactions.at(-1)).toMatchObject({ emoji_name: 'zulip', reaction_type: 'service_extra_emoji', user_id: t.user('shiva').user_id });
  });

  it('rejects duplicates, unknown emoji and invisible messages', async () => {
    const t = setupEmulator();
    const welcome = t.messageWith('Welcome to');
    const dm = t.messageWith('Can you review'); // hamlet and iago only
    const hamlet = t.as('hamlet');
    const before = JSON.stringify(welcome.reactions);
    const cases: [number, WireParams, string, string][] = [
      [welcome.id, { emoji_name: raw('+1') }, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.'],
      [welcome.id, { emoji_name: raw('no_such_emoji') }, 'BAD_REQUEST', "Emoji 'no_such_emoji' does not exist"],
      [welcome.id, { emoji_name: raw('octopus'), emoji_code: raw('zzzz'), reaction_type: raw('unicode_emoji') }, 'BAD_REQUEST', 'Invalid emoji code'],
      [welcome.id, { emoji_name: raw('octopus'), emoji_code: raw('1f680'), reaction_type: raw('unicode_emoji') }, 'BAD_REQUEST', 'Invalid emoji name.'],
      [welcome.id, { emoji_name: raw('party'), emoji_code: raw('42'), reaction_type: raw('realm_emoji') }, 'BAD_REQUEST', 'Invalid custom emoji.'],
      [welcome.id, { emoji_name: raw('octopus'), emoji_code: raw('1f419'), reaction_type: raw('sticker') }, 'BAD_REQUEST', 'Invalid emoji type.'],
      [welcome.id, { emoji_name: raw('zulip'), emoji_code: raw('zulipp'), reaction_type: raw('zulip_extra_emoji') }, 'BAD_REQUEST', 'Invalid emoji code'],
      [welcome.id, {}, 'REQUEST_VARIABLE_MISSING', "Missing 'emoji_name' argument"],
      [424242, { emoji_name: raw('octopus') }, 'BAD_REQUEST', 'Invalid message(s)'],
    ];
    for (const [id, params, code, msg] of cases) {
      const e = await caughtApiError(hamlet.request('x', 'POST', `messages/${id}/reactions`, params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual([code, msg]);
    }
    const hidden = await caughtApiError(addReaction(t.as('othello'), { messageId: dm.id, emojiName: 'octopus' }));
    expect(hidden.message).toBe('Invalid message(s)');
    expect(JSON.stringify(welcome.reactions)).toBe(before);
    expect(dm.reactions).toEqual([]);
  });
});

describe('DELETE /messages/{id}/reactions', () => {
  it('removes the caller\'s reaction by name or by code, with remove events', async () => {
    const t = setupEmulator();
    const welcome = t.messageWith('Welcome to');
    const hamlet = t.as('hamlet');
    const q = await registerQueue(t.as('desdemona'));
    const body = await removeReaction(hamlet, { messageId: welcome.id, emojiName: '+1' });
    expect(validateResponse({ method: 'delete', path: `/messages/${welcome.id}/reactions` }, 200, body).errors).toBe('');
    expect(welcome.reactions.map((r) => [r.emoji_name, r.user_id])).toEqual([
      ['+1', t.user('iago').user_id],
      ['tada', t.user('cordelia').user_id],
    ]);
    await removeReaction(t.as('cordelia'), { messageId: welcome.id, emojiCode: '1f389' });
    expect(welcome.reactions.map((r) => r.emoji_name)).toEqual(['+1']);
    const events = await pollEvents(t.as('desdemona'), q);
    expect(events.map((e) => [e.op, e.emoji_name, e.user_id])).toEqual([
      ['remove', '+1', t.user('hamlet').user_id],
      ['remove', 'tada', t.user('cordelia').user_id],
    ]);
    // Custom-namespace removal of an extra emoji, under the spec's alias too.
    await addReaction(hamlet, { messageId: welcome.id, emojiName: 'zulip' });
    await hamlet.request('x', 'DELETE', `messages/${welcome.id}/reactions`, { emoji_code: raw('zulip'), reaction_type: raw('service_extra_emoji') });
    expect(welcome.reactions.map((r) => r.emoji_name)).toEqual(['+1']);
  });

  it('answers REACTION_DOES_NOT_EXIST, "Invalid emoji code" and argument errors', async () => {
    const t = setupEmulator();
    const welcome = t.messageWith('Welcome to');
    const othello = t.as('othello');
    const cases: [WireParams, string, string][] = [
      [{ emoji_name: raw('+1') }, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."],
      [{ emoji_code: raw('1f680') }, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."],
      [{ emoji_code: raw('not-hex') }, 'BAD_REQUEST', 'Invalid emoji code'],
      [{ emoji_code: raw('99'), reaction_type: raw('realm_emoji') }, 'BAD_REQUEST', 'Invalid emoji code'],
      [{ emoji_code: raw('1f44d'), reaction_type: raw('bogus') }, 'BAD_REQUEST', 'Invalid emoji type.'],
      [{ emoji_name: raw('nope') }, 'BAD_REQUEST', "Emoji 'nope' does not exist"],
      [{}, 'BAD_REQUEST', 'At least one of the following arguments must be present: emoji_name, emoji_code'],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(othello.request('x', 'DELETE', `messages/${welcome.id}/reactions`, params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual([code, msg]);
    }
    expect(welcome.reactions).toHaveLength(3);
    const e = await caughtApiError(t.as('othello').request('x', 'DELETE', `messages/${t.messageWith('Can you review').id}/reactions`, { emoji_name: raw('+1') }));
    expect(e.message).toBe('Invalid message(s)');
  });
});
