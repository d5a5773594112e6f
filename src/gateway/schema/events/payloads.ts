/**
 * What every event object of the schema is backed by, the end of a stream, the tolerant readers
 * of wire fields, and the loads event fields share. Payloads are the hub's parsed events
 * (../../events/model.ts) plus their cursor; resolvers read the wire objects as the server sent them.
 */
import { GraphQLError } from 'graphql';
import type { Context } from '../../context.js';
import { GatewayErrorCode } from '../../errors.js';
import type { GatewayEvent, OtherData } from '../../events/model.js';
import type { EndReason } from '../../events/subscriber.js';

/** What every event object is backed by: the parsed event and its cursor. */
export interface Payload<E extends GatewayEvent = GatewayEvent> {
  cursor: string;
  event: E;
}

export type Other = Payload<OtherData>;

/** The last item of a stream that ends abnormally: the resolver turns it into a GraphQL error. */
export interface Ended {
  ended: { code: string; message: string };
}

const END_CODES: Record<EndReason, GatewayErrorCode> = {
  SLOW_CONSUMER: GatewayErrorCode.slowConsumer,
  UNAUTHENTICATED: GatewayErrorCode.unauthenticated,
  SHUTDOWN: GatewayErrorCode.subscriptionClosed,
};

export function ended(reason: EndReason, message: string): Ended {
  return { ended: { code: END_CODES[reason], message } };
}

export function throwIfEnded<T>(item: T | Ended): T {
  if (item && typeof item === 'object' && 'ended' in item) {
    throw new GraphQLError(item.ended.message, { extensions: { code: item.ended.code } });
  }
  return item;
}

// ---- wire field readers (tolerant: a missing or mistyped field reads as null) -----------------------

export const num = (w: Record<string, unknown>, key: string): number | null => (typeof w[key] === 'number' ? (w[key] as number) : null);
export const str = (w: Record<string, unknown>, key: string): string | null => (typeof w[key] === 'string' ? (w[key] as string) : null);
export const bool = (w: Record<string, unknown>, key: string): boolean | null => (typeof w[key] === 'boolean' ? (w[key] as boolean) : null);
export const ints = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []);
export const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [];
export const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** The wire event without the envelope keys, for opaque `data` fields. */
export const dataOf = (w: Record<string, unknown>): Record<string, unknown> => {
  const { id: _id, type: _type, op: _op, ...rest } = w;
  return rest;
};

export function loadUser(ctx: Context, id: number | null | undefined) {
  return id == null ? null : ctx.loaders.user(id);
}
