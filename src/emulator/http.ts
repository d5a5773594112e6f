/**
 * The emulator's request plumbing: a small router over `/api/v1`, and {@link Params}, which reads
 * parameters the way Zulip does (strings raw, everything else JSON) from the query string and from
 * a form-encoded or multipart body (Django reads both on every method, so every route does), and
 * remembers which ones a handler read so that the rest can be reported in
 * `ignored_parameters_unsupported`. The file parts of a multipart body are kept apart, for the
 * upload routes (Zulip's `request.FILES`).
 */
import type { ZulipOperation } from '../zulip/operation.js';
import { ApiError, badRequest, missingArgument } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export class Params {
  private readonly read = new Set<string>();

  constructor(
    private readonly values: Map<string, string>,
    /** The file parts of a multipart body, by field name, in request order. */
    readonly files: ReadonlyMap<string, File> = new Map(),
  ) {}

  static async fromRequest(request: Request, url: URL): Promise<Params> {
    const values = new Map<string, string>();
    const files = new Map<string, File>();
    for (const [k, v] of url.searchParams) values.set(k, v);
    if (request.method !== 'GET' && request.body) {
      const type = (request.headers.get('content-type') ?? '').toLowerCase();
      if (type.startsWith('multipart/form-data')) {
        let form: FormData;
        try {
          form = await request.formData();
        } catch {
          throw badRequest('Malformed multipart body');
        }
        for (const [k, v] of form) {
          if (typeof v === 'string') values.set(k, v);
          else files.set(k, v);
        }
      } else {
        const text = await request.text();
        if (type.includes('application/json')) throw badRequest('Request body must be form-encoded');
        for (const [k, v] of new URLSearchParams(text)) values.set(k, v);
      }
    }
    return new Params(values, files);
  }

  /** Whether the request carried the parameter (marks it as supported). */
  has(name: string): boolean {
    this.read.add(name);
    return this.values.has(name);
  }

  /** Names the handler never looked at, in request order. */
  unread(): string[] {
    return [...this.values.keys()].filter((k) => !this.read.has(k));
  }

  raw(name: string): string | undefined {
    this.read.add(name);
    return this.values.get(name);
  }

  str(name: string): string {
    const v = this.raw(name);
    if (v === undefined) throw missingArgument(name);
    return v;
  }

  optStr(name: string): string | undefined {
    return this.raw(name);
  }

  int(name: string): number {
    const v = this.optInt(name);
    if (v === undefined) throw missingArgument(name);
    return v;
  }

  optInt(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    return parseIntParam(name, v);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.optBool(name);
    return v === undefined ? fallback : v;
  }

  optBool(name: string): boolean | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw badRequest(`${name} is not a boolean`);
  }

  /** A JSON-encoded parameter; the caller validates its shape. */
  json<T = unknown>(name: string): T {
    const v = this.optJson<T>(name);
    if (v === undefined) throw missingArgument(name);
    return v;
  }

  optJson<T = unknown>(name: string): T | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    try {
      return JSON.parse(v) as T;
    } catch {
      throw badRequest(`Argument "${name}" is not valid JSON.`);
    }
  }

  intArray(name: string): number[] {
    const v = this.optIntArray(name);
    if (v === undefined) throw missingArgument(name);
    return v;
  }

  optIntArray(name: string): number[] | undefined {
    const v = this.optJson(name);
    if (v === undefined) return undefined;
    return checkIntArray(name, v);
  }
}

export function parseIntParam(name: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n)) throw badRequest(`${name} is not an integer`);
  return n;
}

export function checkIntArray(name: string, v: unknown): number[] {
  if (!Array.isArray(v)) throw badRequest(`${name} is not a list`);
  v.forEach((x, i) => {
    if (!Number.isSafeInteger(x)) throw badRequest(`${name}[${i}] is not an integer`);
  });
  return v as number[];
}

/** Rejects strings with NUL characters, which Zulip refuses to store. */
export function checkNoNullBytes(name: string, value: string): string {
  if (value.includes('\u0000')) throw badRequest(`${name} contains NULL (0x00) characters.`);
  return value;
}

/** What every route declares besides where it is. */
interface RouteBase<Ctx> {
  /** @default true */
  auth?: boolean;
  /** Served outside /api/v1, like Zulip's file URLs (`/user_uploads/...`). @default false */
  root?: boolean;
  /** Returns a success body's fields, or a whole Response (a file). */
  handler: (ctx: Ctx) => unknown;
}

/**
 * A route of a Zulip operation: its method and path come from the operation table
 * (src/zulip/generated/), and a server below the operation's feature level answers 404 there.
 */
export interface OperationRoute<Ctx> extends RouteBase<Ctx> {
  operation: ZulipOperation;
  /** The last path parameter takes the rest of the path, slashes included (file names). @default false */
  rest?: boolean;
}

/**
 * A route the operation table does not describe: a URL Zulip serves outside its REST description
 * (the file URLs) or one of the emulator's own (`/dev/...`).
 */
export interface PathRoute<Ctx> extends RouteBase<Ctx> {
  method: HttpMethod;
  /**
   * Path under /api/v1 (or under the root, with `root`) with `:name` placeholders, e.g.
   * `/messages/:message_id`, and at the end optionally one `*name` that takes the rest of the path
   * (slashes included), e.g. `/user_uploads/:realm_id_str/*filename`.
   */
  path: string;
}

export type RouteDef<Ctx> = OperationRoute<Ctx> | PathRoute<Ctx>;

/** A route with its method, router path and the feature level that serves it. */
export interface ResolvedRoute<Ctx> extends RouteBase<Ctx> {
  method: HttpMethod;
  path: string;
  /** The operation's id, when the route is one. */
  operationId?: string;
  /** Below it the route answers 404 (Zulip's URL router of an older release). */
  featureLevel: number;
}

/** A route's method, router path (`{name}` → `:name`, the last one `*name` with `rest`) and level. */
export function resolveRoute<Ctx>(route: RouteDef<Ctx>): ResolvedRoute<Ctx> {
  if (!('operation' in route)) return { ...route, featureLevel: 0 };
  const { operation, rest, ...base } = route;
  let path = operation.path.replace(/\{([^}]+)\}/g, ':$1');
  if (rest) path = path.replace(/:([^/]+)$/, '*$1');
  return { ...base, method: operation.method, path, operationId: operation.id, featureLevel: operation.featureLevel };
}

interface CompiledRoute<Ctx> extends ResolvedRoute<Ctx> {
  segments: string[];
  literalCount: number;
}

/** Matches `/api/v1/...` paths; routes with more literal segments win (so `/users/me` beats `/users/:id`). */
export class Router<Ctx> {
  private readonly routes: CompiledRoute<Ctx>[] = [];

  add(definition: RouteDef<Ctx>): void {
    const route = resolveRoute(definition);
    const segments = route.path.split('/').filter(Boolean);
    const literalCount = segments.filter((s) => !s.startsWith(':')).length;
    this.routes.push({ ...route, segments, literalCount });
    this.routes.sort((a, b) => b.literalCount - a.literalCount);
  }

  match(
    method: string,
    path: string,
    root = false,
    featureLevel = Number.POSITIVE_INFINITY,
  ): { route: ResolvedRoute<Ctx>; pathParams: Record<string, string> } | { error: ApiError } {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    let pathMatched = false;
    let newer = false;
    for (const route of this.routes) {
      if ((route.root ?? false) !== root) continue;
      const pathParams = matchSegments(route.segments, parts);
      if (!pathParams) continue;
      // An operation newer than the server: 404, as for an unknown route, even where the path serves other methods.
      if (route.featureLevel > featureLevel) {
        newer ||= route.method === method;
        continue;
      }
      pathMatched = true;
      if (route.method === method) return { route, pathParams };
    }
    return pathMatched && !newer
      ? { error: new ApiError('BAD_REQUEST', 'Method Not Allowed', 405) }
      : { error: new ApiError('BAD_REQUEST', 'Not Found', 404) };
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  const rest = segments.at(-1)?.startsWith('*') === true;
  if (rest ? parts.length < segments.length : segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.startsWith('*')) params[seg.slice(1)] = parts.slice(i).join('/');
    else if (seg.startsWith(':')) params[seg.slice(1)] = parts[i]!;
    else if (seg !== parts[i]) return null;
  }
  return params;
}
