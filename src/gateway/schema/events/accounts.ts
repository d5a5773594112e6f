/**
 * `accountEvents`: one stream of the events of every account of the caller (docs/accounts.md),
 * each with its `Account`. Each account keeps its own upstream queue (its own hub session, on its
 * own server); this stream merges their payloads as they come. An account whose stream ends (its
 * credentials refused, say) sends one error result and the others go on.
 */
import { Repeater } from 'graphql-yoga';
import { accountContext, enterAccount, requestAccounts, type RequestAccount } from '../../accounts.js';
import { builder } from '../../builder.js';
import { requireCredentials } from '../../context.js';
import { AccountRef } from '../accounts.js';
import { EventFilterInput, filterFromInput } from './inputs.js';
import { throwIfEnded, type Ended, type Payload } from './payloads.js';
import { eventPayloads, open } from './stream.js';
import { ChatEventUnion } from './unions.js';

/** One event of one account. */
interface AccountEventPayload {
  account: RequestAccount;
  item: Payload | Ended;
}

const AccountEventRef = builder.objectRef<AccountEventPayload>('AccountEvent').implement({
  description: 'A real-time event of one of the caller\u2019s accounts.',
  fields: (t) => ({
    account: t.field({ type: AccountRef, description: 'The account whose queue the event came from.', resolve: (p) => p.account }),
    event: t.field({
      type: ChatEventUnion,
      description: 'The event, resolved as that account (its users, channels and messages are that server\u2019s).',
      resolve: (p) => throwIfEnded(p.item) as never,
    }),
  }),
});

builder.subscriptionField('accountEvents', (t) =>
  t.field({
    zulip: { reaches: ['get-events'] },
    type: AccountEventRef,
    description:
      'Every real-time event of every account of the caller, on every server, in one stream, each with its ' +
      'account. Filtered as `events` is. Each account keeps its own upstream queue; resuming with a cursor is ' +
      '`events`\u2019 (one account at a time), not this stream\u2019s.',
    args: { filter: t.arg({ type: EventFilterInput, required: false, description: 'Which events; default: all.' }) },
    subscribe: async (_root, args, ctx) => {
      requireCredentials(ctx);
      const spec = filterFromInput(args.filter);
      const streams = await Promise.all(
        requestAccounts(ctx).map(async (account) => {
          const context = accountContext(ctx, account);
          const payloads = eventPayloads(context, await open(context, spec), spec);
          return new Repeater<AccountEventPayload>(async (push, stop) => {
            void stop.then(() => payloads.return?.());
            for await (const item of payloads) await push({ account, item });
            stop();
          });
        }),
      );
      return Repeater.merge(streams);
    },
    // Everything below the event resolves as its account.
    resolve: (payload: AccountEventPayload, _args, ctx, info) => {
      enterAccount(ctx, payload.account, info.path);
      return payload;
    },
  }),
);
