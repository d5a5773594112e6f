/**
 * Typing: the `TypingEvent` and `TypingEditMessageEvent` types of the event stream, and the
 * `TypingState` the `typing` subscription folds them into (who is typing in one conversation,
 * with starts that expire when they are not renewed).
 */
import { builder } from '../../builder.js';
import { channelLookupCost, userLookupCost } from '../../upstream/cost.js';
import type { Context } from '../../context.js';
import type { TypingData } from '../../events/model.js';
import type { Subscriber } from '../../events/subscriber.js';
import { ChannelRef, loadChannel } from '../channels/index.js';
import { MessageTypeEnum } from '../messages/index.js';
import { UserRef } from '../users.js';
import { EventOpEnum, eventType, otherType } from './kinds.js';
import { loadUser, num, type Ended, type Payload } from './payloads.js';
import { endOf, stream, useBatchLoaders } from './stream.js';

export const TypingEventRef = eventType<Payload<TypingData>>(
  'TypingEvent',
  'Someone started (TYPING_STARTED) or stopped (TYPING_STOPPED) typing. A start is renewed while typing goes on.',
);
builder.objectFields(TypingEventRef, (t) => ({
  started: t.boolean({ description: 'True for a start, false for a stop.', resolve: (p) => p.event.kind === 'TYPING_STARTED' }),
  senderId: t.field({ type: 'Long', description: 'Who is typing.', resolve: (p) => p.event.wire.sender.user_id }),
  sender: t.field({
    zulip: { cost: userLookupCost },
    type: UserRef,
    nullable: true,
    description: 'Who is typing.',
    resolve: (p, _args, ctx) => ctx.loaders.user(p.event.wire.sender.user_id),
  }),
  messageType: t.field({
    type: MessageTypeEnum,
    description: 'In a channel topic, or a direct-message conversation.',
    resolve: (p) => (p.event.wire.message_type === 'stream' ? 'stream' : 'private'),
  }),
  channelId: t.field({ type: 'Long', nullable: true, description: 'The channel.', resolve: (p) => p.event.wire.stream_id ?? null }),
  channel: t.field({
    zulip: { cost: channelLookupCost },
    type: ChannelRef,
    nullable: true,
    description: 'The channel.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.stream_id),
  }),
  topic: t.string({ nullable: true, description: 'The topic.', resolve: (p) => (p.event.wire.message_type === 'stream' ? (p.event.wire.topic ?? '') : null) }),
  recipientIds: t.field({
    type: ['Long'],
    nullable: true,
    description: 'Everyone in the direct-message conversation, the sender included.',
    resolve: (p) => p.event.wire.recipients?.map((r) => r.user_id) ?? null,
  }),
}));

export const TypingEditMessageEventRef = otherType(
  'TypingEditMessageEvent',
  'Someone started (op START) or stopped (op STOP) editing a message (kind TYPING_EDIT_MESSAGE).',
);
builder.objectFields(TypingEditMessageEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'START or STOP.', resolve: (p) => String(p.event.wire.op) }),
  messageId: t.field({ type: 'Long', description: 'The message.', resolve: (p) => num(p.event.wire, 'message_id')! }),
  senderId: t.field({ type: 'Long', description: 'Who is editing.', resolve: (p) => num(p.event.wire, 'sender_id')! }),
  sender: t.field({
    zulip: { cost: userLookupCost },
    type: UserRef,
    nullable: true,
    description: 'Who is editing.',
    resolve: (p, _args, ctx) => loadUser(ctx, num(p.event.wire, 'sender_id')),
  }),
}));

// ---- typing state ------------------------------------------------------------------------------------------

export interface TypingStatePayload {
  cursor: string | null;
  typistIds: number[];
  resynced: boolean;
}

export const TypingStateRef = builder.objectRef<TypingStatePayload>('TypingState').implement({
  description: 'Who is typing in one conversation, sent whenever it changes (a start, a stop, or a start that expired).',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: 'The cursor of the latest event that went into this state.', resolve: (s) => s.cursor }),
    typistIds: t.field({ type: ['Long'], description: 'The users typing now, in the order they started.', resolve: (s) => s.typistIds }),
    typists: t.field({
      zulip: { cost: userLookupCost },
      type: [UserRef],
      description: 'The users typing now.',
      resolve: (s, _args, ctx) => ctx.loaders.users.loadMany(s.typistIds).then((users) => users.filter((u): u is Exclude<typeof u, Error> => !(u instanceof Error))),
    }),
    resynced: t.boolean({
      description: 'True when events may have been missed: the state was reset and rebuilds as people type.',
      resolve: (s) => s.resynced,
    }),
  }),
});

/**
 * Folds a subscriber's typing events into states: one whenever the set of typists changes, including
 * when a start expires without renewal (the pull then waits at most until the soonest expiry).
 */
export function typingStates(ctx: Context, subscriber: Subscriber, expiryMs: number): AsyncIterableIterator<TypingStatePayload | Ended> {
  const expiries = new Map<number, number>();
  let cursor: string | null = null;
  const state = (resynced: boolean) => ({ value: { cursor, typistIds: [...expiries.keys()], resynced } });
  const prune = () => {
    const now = Date.now();
    let changed = false;
    for (const [id, at] of expiries) if (at <= now) changed = expiries.delete(id) || changed;
    return changed;
  };
  return stream<TypingStatePayload>(ctx, subscriber, async () => {
    const soonest = expiries.size > 0 ? Math.min(...expiries.values()) - Date.now() : undefined;
    const result = soonest === undefined ? await subscriber.next() : await subscriber.nextWithin(soonest);
    if (result === undefined) return prune() ? state(false) : 'skip';
    if (result.done) return 'done';
    const item = result.value;
    if (item.type === 'end') return endOf(item);
    const { delivery } = item;
    useBatchLoaders(ctx, delivery);
    cursor = delivery.cursor;
    ctx.stampNow = cursor;
    const event = delivery.event;
    if (event.kind === 'RESYNC') {
      expiries.clear();
      return state(true);
    }
    if (event.kind !== 'TYPING_STARTED' && event.kind !== 'TYPING_STOPPED') return 'skip';
    const id = event.wire.sender.user_id;
    const known = expiries.has(id);
    // A start renews the expiry; a renewal alone is not a change worth sending.
    if (event.kind === 'TYPING_STARTED') expiries.set(id, Date.now() + expiryMs);
    else expiries.delete(id);
    const expired = prune();
    return known === (event.kind === 'TYPING_STARTED') && !expired ? 'skip' : state(false);
  });
}
