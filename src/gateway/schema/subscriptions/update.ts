/**
 * `updateSubscriptions`: the caller joins some channels and leaves others in one upstream call
 * (https://zulip.com/api/update-subscriptions), which Zulip applies in one transaction: either
 * both happen or neither does.
 */
import type { Subscription } from '../../../zulip/model/subscriptions.js';
import { getSubscriptions, updateSubscriptions } from '../../../zulip/routes/subscriptions.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { reaches } from '../../zulip-operations.js';
import { SubscriptionRef } from './index.js';
import { changeEntries, SubscribeChannelInput, SubscriptionChangeRef, toSubscriptionRequests, type SubscriptionChange } from './membership.js';

interface UpdateSubscriptionsPayload {
  /** The names asked for in `add`, lowercased (channel names are case-insensitive). */
  added: Set<string>;
  subscribed: SubscriptionChange[];
  already_subscribed: SubscriptionChange[];
  removed: string[];
  not_removed: string[];
}

const UpdateSubscriptionsPayloadRef = builder.objectRef<UpdateSubscriptionsPayload>('UpdateSubscriptionsPayload').implement({
  description: 'What an updateSubscriptions call did: the channels joined and left.',
  fields: (t) => ({
    subscribed: t.field({ type: [SubscriptionChangeRef], description: 'The channels the caller was newly subscribed to.', resolve: (p) => p.subscribed }),
    alreadySubscribed: t.field({
      type: [SubscriptionChangeRef],
      description: 'The channels of `add` the caller already was subscribed to.',
      resolve: (p) => p.already_subscribed,
    }),
    removed: t.field({ type: ['String'], description: 'The channels the caller was unsubscribed from.', resolve: (p) => p.removed }),
    notRemoved: t.field({ type: ['String'], description: 'The channels of `remove` the caller was not subscribed to.', resolve: (p) => p.not_removed }),
    subscriptions: t.field({
      type: [SubscriptionRef],
      description:
        'The caller\u2019s subscriptions to the channels of `add` as they now are, with their channel IDs (fetched only when ' +
        'selected: one more upstream request).',
      resolve: async (p, _args, ctx): Promise<Subscription[]> => {
        const { subscriptions } = await getSubscriptions(ctx.connection);
        return subscriptions.filter((s) => p.added.has(s.name.toLowerCase()));
      },
    }),
  }),
});

builder.mutationField('updateSubscriptions', (t) =>
  t.field({
    extensions: reaches('update-subscriptions'),
    type: UpdateSubscriptionsPayloadRef,
    description:
      'Subscribes the caller to the channels of `add` (creating those that do not exist) and unsubscribes them from the ' +
      'channels of `remove`, in one upstream call that the server applies all or nothing. At least one of the two lists ' +
      'must name a channel (else BAD_USER_INPUT). A channel of `remove` that does not exist fails with STREAM_DOES_NOT_EXIST.',
    args: {
      add: t.arg({ type: [SubscribeChannelInput], required: false, description: 'The channels to join, by name.' }),
      remove: t.arg.stringList({ required: false, description: 'The channels to leave, by name.' }),
    },
    resolve: async (_root, args, ctx) => {
      const add = args.add ?? [];
      const remove = args.remove ?? [];
      if (add.length === 0 && remove.length === 0) throw badInput('updateSubscriptions: give a channel to add or to remove.');
      if ([...add.map((c) => c.name), ...remove].some((name) => name.trim() === '')) {
        throw badInput('updateSubscriptions: a channel name must not be blank.');
      }
      const result = await updateSubscriptions(ctx.connection, {
        add: add.length > 0 ? toSubscriptionRequests(add) : undefined,
        delete: remove.length > 0 ? [...remove] : undefined,
      });
      return {
        added: new Set(add.map((c) => c.name.trim().toLowerCase())),
        subscribed: changeEntries(result.subscribed),
        already_subscribed: changeEntries(result.already_subscribed),
        removed: result.removed,
        not_removed: result.not_removed,
      };
    },
  }),
);
