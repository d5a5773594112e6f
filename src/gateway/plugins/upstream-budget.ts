/**
 * Spends the credential's bucket (upstream/bucket.ts) for each query and mutation: before it runs,
 * its estimated upstream calls (upstream/estimate.ts, from each field's declared cost) are set
 * aside in the bucket, its calls spend them, and what it did not spend is given back when it ends
 * (after the last `@defer` part). It is refused before any upstream call, with
 * UPSTREAM_BUDGET_EXCEEDED, when the estimate is
 *
 * - over the per-operation cap (`MAX_UPSTREAM_CALLS`): `estimate` and `cap`;
 * - or over what the credential's bucket holds now: `estimate`, `available`, `share` (the most one
 *   window holds) and `retryAfter`, the seconds until it would fit (absent when it never will:
 *   an estimate over the share).
 *
 * Anonymous operations are charged to the client address's bucket (`ANONYMOUS_RATE_LIMIT` calls a
 * minute), and login attempts, whatever credentials came with them, to its login bucket
 * (LOGIN_ATTEMPTS_PER_MINUTE); the address is the peer's, or the one `X-Forwarded-For` names when
 * the peer is a trusted proxy (client-address.ts). Either short refuses the operation the same way.
 *
 * An operation estimated at 0 calls (`{ __typename }`, or one the live directory answers) sets
 * nothing aside and is always served. A subscription is priced per event (its payload; its queue's
 * polls wait for their own tokens: events/queue.ts): each event waits for its estimate in the
 * bucket before it resolves (schema/events/stream.ts).
 */
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Directory } from '../directory/directory.js';
import type { LiveDirectories } from '../directory/live.js';
import { GatewayErrorCode } from '../errors.js';
import type { Reservation } from '../upstream/bucket.js';
import { DEFAULT_MAX_UPSTREAM_CALLS } from '../upstream/budget.js';
import { estimateLoginAttempts, UpstreamEstimates, type WarmDirectory } from '../upstream/estimate.js';
import { clientAddress } from '../client-address.js';

export interface UpstreamBudgetOptions {
  /** Estimated upstream calls one operation may make. @default DEFAULT_MAX_UPSTREAM_CALLS (50) */
  maxCalls?: number;
  /** The live directories, when on: warm ones answer lookups for free, cold ones are about to load. */
  directories?: LiveDirectories | undefined;
  /** The estimates (shared with the `@live` re-runs and subscription events). @default new ones */
  estimates?: UpstreamEstimates;
}

/**
 * How long an operation that the assumed list sizes would refuse waits for its credential's live
 * directory to load (its first lookup would start it anyway), to be priced with real counts.
 */
export const DIRECTORY_SETTLE_MS = 5_000;

type Judgement = { estimate: number; reservation?: Reservation; refusal?: GraphQLError };

/** UPSTREAM_BUDGET_EXCEEDED for `estimate` calls that the credential's bucket cannot grant now. */
export function budgetRefusal(estimate: number, shortfall: { available: number; retryAfterMs: number; share: number }, who = 'this credential', what = 'calls'): GraphQLError {
  const extensions: Record<string, unknown> = { code: GatewayErrorCode.upstreamBudgetExceeded, estimate, available: shortfall.available, share: shortfall.share };
  if (!Number.isFinite(shortfall.retryAfterMs)) {
    return new GraphQLError(
      `This operation needs about ${estimate} ${what} to the chat server, more than ${who}'s share of ${shortfall.share} a minute: select fewer fields under lists, or page through them.`,
      { extensions },
    );
  }
  const retryAfter = Math.max(1, Math.ceil(shortfall.retryAfterMs / 1000));
  extensions.retryAfter = retryAfter;
  return new GraphQLError(
    `This operation needs about ${estimate} ${what} to the chat server; ${who} has ${shortfall.available} left of its share of ${shortfall.share} a minute. Retry after ${retryAfter} s.`,
    { extensions },
  );
}

export function useUpstreamBudget(options: UpstreamBudgetOptions = {}): Plugin<Context> {
  const maxCalls = options.maxCalls ?? DEFAULT_MAX_UPSTREAM_CALLS;
  const { directories } = options;
  const estimates = options.estimates ?? new UpstreamEstimates();

  const judge = (args: ExecutionArgs, ctx: Context, warm: Directory | undefined, again = false): Judgement => {
    const directory: WarmDirectory | undefined = warm?.sizes();
    const { schema, document, operationName, variableValues: variables } = args;
    const estimate = estimates.estimate({ schema, document, operationName, variables, directory });
    if (estimate > maxCalls) {
      const message = `This operation needs about ${estimate} calls to the chat server, over the gateway's cap of ${maxCalls} per operation: select fewer fields under lists, or page through them.`;
      return { estimate, refusal: new GraphQLError(message, { extensions: { code: GatewayErrorCode.upstreamBudgetExceeded, estimate, cap: maxCalls } }) };
    }
    // Anonymous calls count toward the client address's own limit (the chat server limits them by
    // address, and would see only the gateway's), and so do logins, each a password attempt,
    // whatever credentials came with them.
    if (!again) {
      const logins = estimateLoginAttempts({ schema, document, operationName, variables });
      const anonymous = ctx.credentials ? 0 : estimate;
      if (logins > 0 || anonymous > 0) {
        const address = clientAddress((ctx as { req?: Parameters<typeof clientAddress>[0] }).req, ctx.server.trustedProxies) ?? 'in-process';
        const attempts = ctx.server.logins.for(address);
        const calls = ctx.server.addresses.for(address);
        const short = attempts.available() < logins ? { bucket: attempts, n: logins, what: 'login attempts' } : calls.available() < anonymous ? { bucket: calls, n: anonymous, what: 'calls' } : undefined;
        if (short) {
          const shortfall = short.bucket.reserve(short.n);
          if (!('spend' in shortfall)) return { estimate, refusal: budgetRefusal(short.n, shortfall, 'this client address', short.what) };
          shortfall.release();
        }
        attempts.charge(logins);
        calls.charge(anonymous);
      }
    }
    if (!ctx.credentials) return { estimate };
    const granted = ctx.server.buckets.for(ctx.connection.credentialKey).reserve(estimate);
    if ('spend' in granted) return { estimate, reservation: granted };
    return { estimate, refusal: budgetRefusal(estimate, granted) };
  };

  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue;
      if (!ctx.credentials) return;
      const { schema, document, operationName, variableValues: variables } = args;
      // Per event, priced with the directory as it is then (warm, its lookups are free).
      ctx.eventCost = () => estimates.estimate({ schema, document, operationName, variables, directory: directories?.peek(ctx.connection)?.sizes() });
    },
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const settle = (judgement: Judgement) => {
        ctx.upstream.estimate = judgement.estimate;
        if (judgement.refusal) return setResultAndStopExecution({ errors: [judgement.refusal] });
        if (judgement.reservation) ctx.upstream.reservation = judgement.reservation;
      };
      const release = () => ctx.upstream.reservation?.release();
      const done = { onExecuteDone: () => ({ onNext: () => undefined, onEnd: release }) };
      const doneSingle = {
        onExecuteDone({ result }: { result: unknown }) {
          // A stream (`@defer`, `@live`) keeps its reservation until it ends.
          if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) return done.onExecuteDone();
          release();
          return undefined;
        },
      };
      const warm = ctx.credentials ? directories?.peek(ctx.connection) : undefined;
      const judgement = judge(args, ctx, warm);
      if (!judgement.refusal || !directories || !ctx.credentials || warm || judgement.estimate > maxCalls) {
        settle(judgement);
        return doneSingle;
      }
      // Lists are sized by their assumed bound until the directory counts them: wait for it (only
      // an operation about to be refused waits, so no other pays for it).
      return directories.settled(ctx.connection, DIRECTORY_SETTLE_MS).then((settled) => {
        settle(settled ? judge(args, ctx, settled, true) : judgement);
        return doneSingle;
      }) as never;
    },
  };
}
