/**
 * The chat server's length limits, per gateway instance (on its UpstreamServer, upstream/server.ts):
 * Zulip's defaults until a registration response reports the server's own. plugins/input-bounds.ts
 * holds arguments to them.
 */

/** The chat server's length limits (Unicode code points, as Zulip counts them). */
export interface InputLimits {
  max_topic_length: number;
  max_message_length: number;
  max_stream_name_length: number;
  max_stream_description_length: number;
}

/** Zulip's values (https://zulip.com/api/register-queue), used until the server reports its own. */
export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = {
  max_topic_length: 60,
  max_message_length: 10_000,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
};

/**
 * Takes the limits a registration response reports (any of the four keys, positive integers)
 * into `limits`: called by the live directory for each registration (yoga.ts).
 */
export function learnInputLimits(limits: InputLimits, response: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(DEFAULT_INPUT_LIMITS) as (keyof InputLimits)[]) {
    const value = response[key];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) limits[key] = value;
  }
}
