/**
 * `stream` and `subscription` events (https://zulip.com/api/get-events#stream-create), applied as
 * Zulip's `apply_event` (zerver/lib/events.py) and zulip-flutter's `ChannelStore` do. Subscriber
 * lists are not kept (the queue registers without include_subscribers), so peer events change nothing.
 */
import type { Channel } from '../../../zulip/model/channels.js';
import type { Subscription } from '../../../zulip/model/subscriptions.js';
import { own, setKnown, type DirectoryData, type DirectoryEvent } from '../data.js';

function removeChannel(data: DirectoryData, id: number): void {
  data.channels.delete(id);
  // zulip-flutter drops the subscription with the channel: access to it is gone.
  data.subscriptions.delete(id);
}

export function applyStreamEvent(data: DirectoryData, event: DirectoryEvent): void {
  switch (event.op) {
    case 'create':
      for (const channel of (event.streams as Channel[] | undefined) ?? []) data.channels.set(channel.stream_id, own(channel));
      return;
    case 'delete': {
      // `stream_ids` since feature level 343; before it, whole channel objects.
      const ids = (event.stream_ids as number[] | undefined) ?? ((event.streams as { stream_id: number }[] | undefined) ?? []).map((s) => s.stream_id);
      for (const id of ids) removeChannel(data, id);
      return;
    }
    case 'update': {
      const id = event.stream_id as number;
      const change = (record: Channel | Subscription) => applyChannelUpdate(record, event);
      data.channels.update(id, change);
      data.subscriptions.update(id, change);
      return;
    }
  }
}

/** One `stream/update`: the property, plus the companions some properties carry. */
function applyChannelUpdate(record: Channel | Subscription, event: DirectoryEvent): void {
  const property = event.property as string;
  setKnown(record, property, event.value);
  if (property === 'description' && typeof event.rendered_description === 'string') {
    setKnown(record, 'rendered_description', event.rendered_description);
  }
  if (typeof event.history_public_to_subscribers === 'boolean') {
    setKnown(record, 'history_public_to_subscribers', event.history_public_to_subscribers);
  }
  if (typeof event.is_web_public === 'boolean') setKnown(record, 'is_web_public', event.is_web_public);
  // The deprecated flag follows stream_post_policy (2 = administrators only).
  if (property === 'stream_post_policy') setKnown(record, 'is_announcement_only', event.value === 2);
}

export function applySubscriptionEvent(data: DirectoryData, event: DirectoryEvent): void {
  switch (event.op) {
    case 'add':
      for (const sub of (event.subscriptions as Subscription[] | undefined) ?? []) {
        const copy = own(sub);
        delete copy.subscribers; // not in the register state without include_subscribers
        data.subscriptions.set(copy.stream_id, copy);
      }
      return;
    case 'remove':
      for (const sub of (event.subscriptions as { stream_id: number }[] | undefined) ?? []) data.subscriptions.delete(sub.stream_id);
      return;
    case 'update': {
      const property = event.property as string;
      data.subscriptions.update(event.stream_id as number, (sub) => {
        setKnown(sub, property, event.value);
        // in_home_view is the deprecated inverse of is_muted; servers send either.
        if (property === 'in_home_view') sub.is_muted = !event.value;
        if (property === 'is_muted') setKnown(sub, 'in_home_view', !event.value);
      });
      return;
    }
  }
}
