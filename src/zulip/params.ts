/**
 * How a route declares the wire form of its parameters.
 *
 * Zulip's views read each parameter in one of two ways: `Json[...]` parameters (numbers, booleans,
 * lists, objects, and a few strings such as `message_retention_days`) through a JSON decoder, and
 * plain `str` parameters (message content, topic, anchor, emoji names...) as the text itself. The
 * type of a value does not tell which: the string `"unlimited"` goes JSON-encoded to
 * `PATCH /streams/{id}` but a topic goes raw. So every route file says, per parameter, `raw(...)` or
 * `json(...)`, and the connection sends exactly that text. docs/zulip-parameters.md lists every
 * parameter with what Zulip's server code expects.
 * See https://zulip.com/api/http-headers and https://zulip.com/api/rest.
 */

declare const WIRE: unique symbol;

/** One parameter value in its final wire text. Only {@link raw} and {@link json} make one. */
export type WireValue = string & { readonly [WIRE]: true };

/** A route's parameters; `undefined` values are left out of the request. */
export type WireParams = Readonly<Record<string, WireValue | undefined>>;

/**
 * A parameter Zulip reads as plain text (`str` in its view): sent as is. Numbers and booleans are
 * written as their text (`'true'`), for the few `str` parameters that carry them (e.g. the
 * `include_subscribers` of `POST /register`, which also accepts `partial`).
 */
export function raw(value: string | number | boolean | undefined): WireValue | undefined {
  return value === undefined ? undefined : (String(value) as WireValue);
}

/** A parameter Zulip reads as JSON (`Json[...]` in its view): sent JSON-encoded, `null` included. */
export function json(value: unknown): WireValue | undefined {
  return value === undefined ? undefined : (JSON.stringify(value) as WireValue);
}

/** The query string or form body of a request: declared values in order, undefined ones left out. */
export function encodeParams(params: WireParams | undefined): URLSearchParams {
  const encoded = new URLSearchParams();
  if (params === undefined) return encoded;
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      // A JavaScript caller that skipped raw()/json(): refuse rather than send "[object Object]".
      throw new TypeError(`Parameter ${name} was not encoded with raw() or json()`);
    }
    encoded.append(name, value);
  }
  return encoded;
}
