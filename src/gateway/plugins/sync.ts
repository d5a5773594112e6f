/**
 * Stamps (docs/mobile-sync.md): every query result, `@live` result and subscription event of a
 * credential carries `extensions.stamp`, the position of the credential's event stream the answer
 * reflects; and resolvers get the change logs (`ctx.sync`) that answer `changes(since:)`.
 *
 * - A query's stamp is taken as it starts executing, before it reads anything: every event after
 *   the stamp reaches a subscription resumed from it (or `changes(since:)`), so nothing is missed.
 *   Before the credential's event queue is registered there is no stream to name: such an answer
 *   carries no stamp, unless the query selects the root field `stamp`, which makes it wait for the
 *   registration (the one its live directory makes anyway) before it runs.
 * - A `@live` result carries the stamp of the execution that produced it; a subscription event
 *   carries its own cursor.
 * - Mutations carry none: their effect arrives as events, after the stamp of the next query.
 */
import type { ExecutionResult } from 'graphql';
import { getOperationAST, Kind, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { SyncLogs } from '../sync/logs.js';

function stamped(result: ExecutionResult, stamp: string | undefined): ExecutionResult {
  if (stamp === undefined) return result;
  const extensions: Record<string, unknown> = { ...result.extensions };
  extensions.stamp = stamp;
  const reported: ExecutionResult = { ...result };
  reported.extensions = extensions;
  return reported;
}

/** Whether the operation selects the root field `stamp` (directly or in an inline fragment at the root). */
function selectsStamp(selections: SelectionSetNode): boolean {
  return selections.selections.some(
    (s) => (s.kind === Kind.FIELD && s.name.value === 'stamp') || (s.kind === Kind.INLINE_FRAGMENT && selectsStamp(s.selectionSet)),
  );
}

export function useSync(sync: SyncLogs): Plugin<Context> {
  return {
    onContextBuilding({ extendContext }) {
      extendContext({ sync });
    },
    async onExecute({ args }) {
      const ctx = args.contextValue;
      const operation = getOperationAST(args.document, args.operationName);
      if (!ctx.credentials || operation?.operation !== 'query') return;
      const stamp = await sync.stamp(ctx.connection, selectsStamp(operation.selectionSet));
      ctx.stampNow = stamp;
      return {
        onExecuteDone({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) return setResult(stamped(result, stamp));
          // `@defer`/`@stream` parts carry the query's stamp; `@live` results their execution's.
          return { onNext: ({ result: next, setResult: setNext }) => setNext(stamped(next, ctx.stampNow)) };
        },
      };
    },
    onSubscribe({ args }) {
      const ctx = args.contextValue;
      if (!ctx.credentials) return;
      return {
        onSubscribeResult() {
          return { onNext: ({ result, setResult }) => setResult(stamped(result, ctx.stampNow)) };
        },
      };
    },
    onDispose: () => sync.close(),
  };
}
