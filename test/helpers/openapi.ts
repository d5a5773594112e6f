/**
 * Validates response bodies against Zulip's OpenAPI description
 * (shared/reference/zulip-openapi-fl247.yaml), so that the emulator and the
 * scripted fixtures answer in the shapes a real server documents.
 *
 * The file is OpenAPI 3.0, written for Zulip's own checker, so it is turned into
 * plain JSON Schema before ajv sees it:
 * - `$ref`s are inlined (the file has no reference cycles);
 * - `allOf` is merged into one schema. Zulip writes responses as
 *   `allOf: [JsonSuccessBase, {additionalProperties: false, properties: {result: {}, msg: {}, ...}}]`,
 *   where `{}` re-declares a property of another branch; validated branch by
 *   branch, `additionalProperties: false` would reject the other branches' fields;
 * - `nullable: true` becomes a `null` type; `oneOf` becomes `anyOf`, because
 *   several error branches are structurally identical and would all match;
 * - documentation keywords (example, description, deprecated, x-*) are dropped.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

export interface Operation {
  /** HTTP method, any case. */
  method: string;
  /**
   * A concrete path ('/messages/42', 'api/v1/users/me', with or without a query)
   * or a template as written in the file ('/messages/{message_id}').
   */
  path: string;
}

export interface ValidateOptions {
  /**
   * Field names newer than the file (documented by api-spec.md) that may appear
   * where the schema says `additionalProperties: false`, at any depth.
   */
  allowExtra?: string[];
}

export interface ValidationResult {
  valid: boolean;
  /** Human-readable reasons, one per line; '' when valid. */
  errors: string;
}

type Schema = Record<string, unknown>;
type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, Schema> }>>;
  components: Record<string, Record<string, Schema>>;
};

const SPEC_URL = new URL('../../../shared/reference/zulip-openapi-fl247.yaml', import.meta.url);
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const MAX_ERROR_LINES = 25;

let cachedDocument: OpenApiDocument | undefined;
const normalized = new WeakMap<object, Schema>();
const validators = new Map<string, ValidateFunction>();
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

/** Validates `body` against the documented response of `operation` for `status`. */
export function validateResponse(
  operation: Operation,
  status: number,
  body: unknown,
  options: ValidateOptions = {},
): ValidationResult {
  const found = findOperation(operation);
  if (!found) return invalid(`no operation ${operation.method.toUpperCase()} ${operation.path} in the OpenAPI file`);
  const allowExtra = [...new Set(options.allowExtra ?? [])].sort();
  const key = `${found.method} ${found.template} ${status} ${allowExtra.join(',')}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = responseSchema(found.responses, status);
    if (!schema) return invalid(`no JSON response documented for ${found.method.toUpperCase()} ${found.template} ${status}`);
    validate = ajv.compile(toJsonSchema(normalize(schema), allowExtra));
    validators.set(key, validate);
  }
  if (validate(body)) return { valid: true, errors: '' };
  return invalid(formatErrors(validate.errors ?? []));
}

/**
 * The example bodies the file gives for `operation` and `status` (on the response
 * schema and its allOf/oneOf branches): ready-made valid bodies for tests.
 */
export function responseExamples(operation: Operation, status: number): unknown[] {
  const found = findOperation(operation);
  const schema = found && responseSchema(found.responses, status);
  return schema ? collectExamples(schema) : [];
}

function collectExamples(raw: Schema, out: unknown[] = []): unknown[] {
  const schema = deref(raw);
  if (schema.example !== undefined) out.push(schema.example);
  for (const keyword of ['allOf', 'oneOf', 'anyOf']) {
    for (const branch of (schema[keyword] as Schema[] | undefined) ?? []) collectExamples(branch, out);
  }
  return out;
}

function invalid(errors: string): ValidationResult {
  return { valid: false, errors };
}

function document(): OpenApiDocument {
  cachedDocument ??= parse(readFileSync(SPEC_URL, 'utf8'), { maxAliasCount: -1 }) as OpenApiDocument;
  return cachedDocument;
}

// ---------------------------------------------------------------------------
// Finding the operation and its response schema

interface FoundOperation {
  method: string;
  template: string;
  responses: Record<string, Schema>;
}

function findOperation(operation: Operation): FoundOperation | undefined {
  const method = operation.method.toLowerCase();
  const path = normalizePath(operation.path);
  const paths = document().paths;
  const exact = paths[path]?.[method];
  if (exact?.responses) return { method, template: path, responses: exact.responses };
  let best: { template: string; score: number } | undefined;
  for (const [template, item] of Object.entries(paths)) {
    if (!HTTP_METHODS.has(method) || !item[method]?.responses) continue;
    const score = matchScore(template, path);
    if (score !== undefined && (!best || score > best.score)) best = { template, score };
  }
  return best && { method, template: best.template, responses: paths[best.template]![method]!.responses! };
}

/** '/api/v1/messages/42?x=1' and 'messages/42' both become '/messages/42'. */
function normalizePath(path: string): string {
  const bare = path.split('?')[0]!.replace(/^\/+/, '').replace(/^api\/v1\//, '');
  return `/${bare.replace(/\/+$/, '')}`;
}

/**
 * How well a concrete path fits a template, or undefined if it does not. Literal
 * segments count most ('/users/me' beats '/users/{user_id}'); a numeric value
 * prefers an `*id` parameter ('/users/{user_id}' over '/users/{email}').
 */
function matchScore(template: string, path: string): number | undefined {
  const want = template.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  let score = 0;
  for (let i = 0; i < want.length; i++) {
    const parameter = /^\{(.+)\}$/.exec(want[i]!)?.[1];
    if (parameter === undefined) {
      if (want[i] !== have[i]) return undefined;
      score += 100;
    } else if (/^\d+$/.test(have[i]!) === /id$/.test(parameter)) {
      score += 1;
    }
  }
  return score;
}

function responseSchema(responses: Record<string, Schema>, status: number): Schema | undefined {
  const code = String(status);
  let response = responses[code] ?? responses[`${code[0]}XX`] ?? responses.default;
  response = response && deref(response);
  const content = response?.content as Record<string, { schema?: Schema }> | undefined;
  return content?.['application/json']?.schema;
}

function deref(schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref chain too long at ${current.$ref}`);
    const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(current.$ref) ?? [];
    const target = section && name ? document().components[section]?.[name] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${current.$ref}`);
    const { $ref: _ref, ...siblings } = current;
    current = Object.keys(siblings).length > 0 ? { allOf: [target, siblings] } : target;
  }
  return current;
}

// ---------------------------------------------------------------------------
// OpenAPI 3.0 → one self-contained schema without allOf

/** Inlines refs and merges allOf, recursively; OpenAPI keywords (nullable, oneOf) stay. */
function normalize(raw: Schema): Schema {
  const cached = normalized.get(raw);
  if (cached) return cached;
  const schema = deref(raw);
  if (schema !== raw) {
    const result = normalize(schema);
    normalized.set(raw, result);
    return result;
  }
  const { allOf, ...rest } = schema;
  let result: Schema = {};
  for (const [keyword, value] of Object.entries(rest)) result[keyword] = normalizeKeyword(keyword, value);
  if (Array.isArray(allOf)) result = (allOf as Schema[]).map(normalize).reduce(merge, result);
  normalized.set(raw, result);
  return result;
}

function normalizeKeyword(keyword: string, value: unknown): unknown {
  if (keyword === 'properties') return mapValues(value as Record<string, Schema>, normalize);
  if (keyword === 'items' || keyword === 'not') return normalize(value as Schema);
  if (keyword === 'additionalProperties' && isObject(value)) return normalize(value);
  if (keyword === 'oneOf' || keyword === 'anyOf') return (value as Schema[]).map(normalize);
  return value;
}

/** Both schemas must hold: properties merge key by key, `required` unites, `false` wins. */
function merge(a: Schema, b: Schema): Schema {
  const result: Schema = { ...a };
  for (const [keyword, value] of Object.entries(b)) {
    const mine = result[keyword];
    if (mine === undefined) result[keyword] = value;
    else if (keyword === 'properties') result[keyword] = mergeProperties(mine as Record<string, Schema>, value as Record<string, Schema>);
    else if (keyword === 'required') result[keyword] = [...new Set([...(mine as string[]), ...(value as string[])])];
    else if (keyword === 'additionalProperties') result[keyword] = mergeAdditional(mine, value);
    else if (keyword === 'items') result[keyword] = merge(mine as Schema, value as Schema);
    else if (keyword === 'nullable') result[keyword] = mine === true && value === true;
    else if (keyword === 'oneOf' || keyword === 'anyOf' || keyword === 'enum') {
      // Two alternatives lists must both hold; keep the second one as a nested constraint.
      result.allOf = [...((result.allOf as Schema[]) ?? []), { [keyword]: value }];
    }
    // Any other keyword (type, description, example): the first branch's value stands.
  }
  return result;
}

function mergeProperties(a: Record<string, Schema>, b: Record<string, Schema>): Record<string, Schema> {
  const result = { ...a };
  for (const [name, schema] of Object.entries(b)) result[name] = name in result ? merge(result[name]!, schema) : schema;
  return result;
}

function mergeAdditional(a: unknown, b: unknown): unknown {
  if (a === false || b === false) return false;
  if (isObject(a) && isObject(b)) return merge(a, b);
  return isObject(a) ? a : b;
}

/**
 * Turns the normalized OpenAPI schema into JSON Schema: nullable ⇒ null type,
 * oneOf ⇒ anyOf, documentation keywords dropped, `allowExtra` names declared
 * wherever additional properties are forbidden.
 */
function toJsonSchema(schema: Schema, allowExtra: string[], seen = new Map<Schema, Schema>()): Schema {
  const done = seen.get(schema);
  if (done) return done;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (isDocumentation(keyword) || keyword === 'nullable') continue;
    const convert = (inner: Schema) => toJsonSchema(inner, allowExtra, seen);
    if (keyword === 'properties') out.properties = mapValues(value as Record<string, Schema>, convert);
    else if (keyword === 'items' || keyword === 'not') out[keyword] = convert(value as Schema);
    else if (keyword === 'additionalProperties' && isObject(value)) out[keyword] = convert(value);
    else if (keyword === 'oneOf' || keyword === 'anyOf' || keyword === 'allOf') {
      out[keyword === 'allOf' ? 'allOf' : 'anyOf'] = (value as Schema[]).map(convert);
    } else out[keyword] = value;
  }
  if (out.additionalProperties === false && allowExtra.length > 0) {
    const properties = { ...((out.properties as Record<string, Schema>) ?? {}) };
    for (const name of allowExtra) properties[name] ??= {};
    out.properties = properties;
  }
  const result = schema.nullable === true ? nullable(out) : out;
  seen.set(schema, result);
  return result;
}

function nullable(schema: Schema): Schema {
  if (typeof schema.type === 'string' && !('enum' in schema)) return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

function isDocumentation(keyword: string): boolean {
  return ['example', 'examples', 'description', 'deprecated', 'title', 'externalDocs'].includes(keyword) || keyword.startsWith('x-');
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}

// ---------------------------------------------------------------------------

function formatErrors(errors: ErrorObject[]): string {
  const lines = errors.map((error) => {
    const where = error.instancePath === '' ? '(root)' : error.instancePath;
    const extra = error.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : '';
    return `${where} ${error.message ?? error.keyword}${extra} [${error.schemaPath}]`;
  });
  const shown = [...new Set(lines)];
  const more = shown.length > MAX_ERROR_LINES ? `\n… and ${shown.length - MAX_ERROR_LINES} more` : '';
  return shown.slice(0, MAX_ERROR_LINES).join('\n') + more;
}
