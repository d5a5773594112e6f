/**
 * Parsers for environment values. Each returns the parsed value or throws a `ConfigProblem` whose
 * text names the variable and what was expected; secrets are never echoed (the caller says which
 * variables are secret).
 */

/** One thing wrong with one variable; `loadConfig` collects them all before failing. */
export class ConfigProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigProblem';
  }
}

/** How a value is shown in a message: quoted, or hidden when the variable holds a secret. */
export function shown(value: string, secret: boolean): string {
  return secret ? '(value hidden)' : JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

export function integer(name: string, value: string, { min, max }: { min: number; max: number }): number {
  const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw new ConfigProblem(`${name} must be ${range}, got ${shown(value, false)}.`);
  }
  return n;
}

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no']);

export function flag(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigProblem(`${name} must be on/off (or true/false, 1/0), got ${shown(value, false)}.`);
}

export function oneOf<T extends string>(name: string, value: string, choices: readonly T[]): T {
  const v = value.trim().toLowerCase();
  if ((choices as readonly string[]).includes(v)) return v as T;
  throw new ConfigProblem(`${name} must be one of ${choices.join(', ')}, got ${shown(value, false)}.`);
}

/** An http(s) URL; `originOnly` also refuses a path, query or fragment. */
export function httpUrl(name: string, value: string, { originOnly = false, secret = false } = {}): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigProblem(`${name} must be an http(s) URL such as https://chat.example.com, got ${shown(value, secret)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigProblem(`${name} must use http or https, got ${shown(value, secret)}.`);
  }
  if (url.username || url.password) {
    throw new ConfigProblem(`${name} must not carry credentials in the URL (value hidden).`);
  }
  if (originOnly && ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)) {
    throw new ConfigProblem(`${name} must be an origin without path, query or fragment (e.g. https://chat.example.com), got ${shown(value, secret)}.`);
  }
  return url;
}

/** A comma-separated list of browser origins, or `*` alone (any origin, never with credentials). */
export function origins(name: string, value: string): string[] | '*' {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 1 && items[0] === '*') return '*';
  return items.map((item) => {
    if (item === '*') throw new ConfigProblem(`${name}: "*" must be the only entry.`);
    const url = httpUrl(name, item, { originOnly: true });
    return url.origin;
  });
}

/** `key=value,key2=value2` (OTEL_EXPORTER_OTLP_HEADERS); values may be percent-encoded. */
export function keyValueList(name: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigProblem(`${name} must be a list of key=value pairs separated by commas (value hidden).`);
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new ConfigProblem(`${name} holds a malformed percent-encoding (value hidden).`);
    }
  }
  return out;
}

/** A URL path starting with `/`, without query. */
export function urlPath(name: string, value: string): string {
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(value)) throw new ConfigProblem(`${name} must be a path such as /metrics, got ${shown(value, false)}.`);
  return value;
}
