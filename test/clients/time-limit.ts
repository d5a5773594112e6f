/**
 * The setup of the typed expected error every client test reads: a topic of King Hamlet's whose
 * oldest message is past the organization's move time limit, so that moving the whole topic as
 * Hamlet answers `MoveMessagesTimeLimitExceededError` (editMessage's result union).
 */
import { insertMessage } from '../../src/emulator/factory.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { Harness } from '../helpers/harness.js';
import { basicAuth } from '../helpers/harness.js';

/** The emulator setting the harness takes: moving within a channel is allowed for an hour. */
export const MOVE_LIMIT = { moveMessagesWithinStreamLimitSeconds: 3600 };

export const HAMLET = basicAuth(demoUser('hamlet'));

/** A topic with one message older than the limit and one newer; returns the newer one's id. */
export function topicPastTheLimit(h: Harness, topic: string): number {
  const store = h.emulator.store;
  const sender = store.userByEmail(demoUser('hamlet').email)!.user_id;
  const channel = store.channelByName('general')!.stream_id;
  const now = Math.floor(Date.now() / 1000);
  insertMessage(store, { sender_id: sender, stream_id: channel, topic, content: 'old', timestamp: now - 7200 });
  return insertMessage(store, { sender_id: sender, stream_id: channel, topic, content: 'new', timestamp: now - 60 }).id;
}
