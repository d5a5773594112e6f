/**
 * The organization the dashboard benches (bench:gateway, bench:live-cache) query: extra senders
 * and channels, so that a page of the newest messages has many distinct senders, channels and
 * reaction users to resolve. Run in the emulator's child process.
 */
import { addChannel, addUser, insertMessage, subscribe } from '../src/emulator/factory.js';
import type { Store } from '../src/emulator/store.js';

/** How much is added to the demo organization. */
export const SEED = { senders: 40, channels: 10, messages: 150 };

/** Adds SEED's senders, channels and messages (one in ten a direct message to the viewer), each with one reaction. */
export function seedDashboard(store: Store, viewerId: number, now = Date.now()): { senderIds: number[]; lastMessageId: number } {
  const senders = Array.from({ length: SEED.senders }, (_, i) =>
    addUser(store, { full_name: `Bench Sender ${i}`, delivery_email: `bench${i}@zulip.example.com` }, now),
  );
  const channels = Array.from({ length: SEED.channels }, (_, i) =>
    addChannel(store, { name: `bench-${i}`, description: `Bench channel **${i}**` }, now),
  );
  for (const channel of channels) {
    subscribe(store, channel.stream_id, viewerId);
    for (const sender of senders) subscribe(store, channel.stream_id, sender.user_id);
  }
  let lastMessageId = 0;
  for (let i = 0; i < SEED.messages; i++) {
    const sender = senders[i % SEED.senders]!;
    const message = insertMessage(store, {
      sender_id: sender.user_id,
      ...(i % 10 === 3 ? { to_user_ids: [viewerId] } : { stream_id: channels[i % SEED.channels]!.stream_id, topic: `topic ${i % 5}` }),
      content: `Bench message **${i}** with a [link](https://example.com/${i}).`,
      timestamp: Math.floor(now / 1000) - SEED.messages + i,
    });
    message.reactions.push({ emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji', user_id: senders[(i * 7 + 3) % SEED.senders]!.user_id });
    lastMessageId = message.id;
  }
  return { senderIds: senders.map((s) => s.user_id), lastMessageId };
}
