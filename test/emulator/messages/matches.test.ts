/**
 * The emulator's `GET /messages/matches_narrow`, driven through the REST client: only received
 * messages that match, keyed by ID, with search hits highlighted, and bad narrows refused.
 */
import { describe, expect, it } from 'vitest';
import { checkMessagesMatchNarrow, sendMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';

describe('GET /messages/matches_narrow', () => {
  it('keys the received messages that match by ID, search hits highlighted', async () => {
    const t = setupEmulator();
    const send = async (topic: string, content: string) => (await sendMessage(t.as('iago'), { type: 'stream', to: t.channelId('general'), topic, content })).id;
    const lunch = await send('food', 'lunch at noon');
    const dinner = await send('food', 'dinner later');
    const other = await send('work', 'lunch meeting');
    const ids = [lunch, dinner, other, 999_999];
    const byTopic = await checkMessagesMatchNarrow(t.as('hamlet'), { msgIds: ids, narrow: [{ operator: 'topic', operand: 'food' }] });
    expectValidResponse('get', '/messages/matches_narrow', byTopic);
    expect(byTopic.messages).toEqual({
      [lunch]: { match_content: '<p>lunch at noon</p>', match_subject: 'food' },
      [dinner]: { match_content: '<p>dinner later</p>', match_subject: 'food' },
    });
    const search = await checkMessagesMatchNarrow(t.as('hamlet'), { msgIds: ids, narrow: [{ operator: 'search', operand: 'lunch' }] });
    expect(Object.keys(search.messages).map(Number).sort()).toEqual([lunch, other]);
    expect(search.messages[lunch]!.match_content).toBe('<p><span class="highlight">lunch</span> at noon</p>');
  });

  it('leaves out messages seen only through public history, and refuses a bad narrow', async () => {
    const t = setupEmulator();
    // Polonius is not subscribed to #announce, which is web-public: readable, but not received.
    const id = (await sendMessage(t.as('iago'), { type: 'stream', to: t.channelId('design'), topic: 't', content: 'hi' })).id;
    const announce = (await sendMessage(t.as('iago'), { type: 'stream', to: t.channelId('announce'), topic: 't', content: 'hi' })).id;
    const { messages } = await checkMessagesMatchNarrow(t.as('polonius'), { msgIds: [id, announce], narrow: [] });
    expect(Object.keys(messages).map(Number)).toEqual([id]);
    const e = await caughtApiError(checkMessagesMatchNarrow(t.as('hamlet'), { msgIds: [id], narrow: [{ operator: 'bogus', operand: 'x' }] }));
    expect(e.code).toBe('BAD_NARROW');
  });
});
