/**
 * Regenerates test/fixtures/zulip-openapi-facts.json, the response-schema facts the tests validate
 * emulator and fixture bodies against (test/helpers/openapi.ts), from Zulip's OpenAPI description
 * (zerver/openapi/zulip.yaml in the zulip/zulip repository, https://zulip.com/api/).
 *
 *   npx tsx scripts/openapi-facts.ts <zulip.yaml> [--responses <older-zulip.yaml>] > test/fixtures/zulip-openapi-facts.json
 *
 * `operations` always come from the first file. The response facts (`paths` and the `components`
 * they reach) come from `--responses` when given: the emulator answers in the shapes of the
 * release it emulates, and the committed fixture takes its responses from the feature level 247
 * file (Zulip 9.0) while its operations come from the current one.
 *
 * Only facts are kept:
 * - `paths`: per operation and status, the JSON response schema's field names, types, required
 *   keys, enums, nullability and structure (allOf/oneOf/anyOf, items, additionalProperties, $ref
 *   into the components it reaches);
 * - `operations`: per operation id, its method and path template, whether it is deprecated, the
 *   feature level of its "New in Zulip X (feature level N)" note, and each parameter: where it
 *   goes (path, query or the form body), whether it is required, whether Zulip reads it
 *   JSON-encoded (`content: application/json` on a parameter, `contentType: application/json` in
 *   the body's `encoding`), its schema facts, deprecation and feature level.
 * Descriptions and examples are dropped. scripts/generate-zulip-api.ts turns `operations` into
 * src/zulip/generated/ and docs/api-coverage.md.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ParameterFacts } from './generate-zulip-api.js';

type Schema = Record<string, unknown>;

/** Schema keywords that state a fact about the wire shape; everything else (prose, examples, x-*) goes. */
const FACT_KEYWORDS = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'nullable',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
]);
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const [, , source, flag, responsesSource] = process.argv;
if (!source || (flag !== undefined && (flag !== '--responses' || !responsesSource))) {
  process.stderr.write(
    'usage: npx tsx scripts/openapi-facts.ts <zulip.yaml> [--responses <older-zulip.yaml>] > test/fixtures/zulip-openapi-facts.json\n',
  );
  process.exit(2);
}
interface OperationSource {
  operationId?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Schema[];
  requestBody?: Schema;
  responses?: Record<string, Schema>;
}
interface OpenApiSource {
  paths: Record<string, Record<string, OperationSource>>;
  components: Record<string, Record<string, Schema>>;
}
const load = (file: string) => parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 }) as OpenApiSource;
const doc = load(source);
const responsesDoc = responsesSource ? load(responsesSource) : doc;

const referenced = new Set<string>();
const pending: string[] = [];

function noteRef(ref: string): void {
  if (!referenced.has(ref)) {
    referenced.add(ref);
    pending.push(ref);
  }
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The fact keywords of a schema, recursively; `properties` keeps every field name. */
function facts(schema: Schema): Schema {
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!FACT_KEYWORDS.has(keyword)) continue;
    if (keyword === '$ref') noteRef(value as string);
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, inner]) => [name, facts(inner)]));
    } else if (keyword === 'items' || keyword === 'not' || (keyword === 'additionalProperties' && isObject(value))) {
      out[keyword] = facts(value as Schema);
    } else if (keyword === 'allOf' || keyword === 'oneOf' || keyword === 'anyOf') {
      out[keyword] = (value as Schema[]).map(facts);
    } else {
      out[keyword] = value;
    }
  }
  return out;
}

/** A response object reduced to its JSON schema (responses may themselves be `$ref`s). */
function responseFacts(response: Schema): Schema {
  if (typeof response.$ref === 'string') {
    noteRef(response.$ref);
    return { $ref: response.$ref };
  }
  const schema = (response.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
  return schema ? { content: { 'application/json': { schema: facts(schema) } } } : {};
}

const paths: Record<string, Record<string, { responses: Record<string, Schema> }>> = {};
for (const [template, item] of Object.entries(responsesDoc.paths).sort(([a], [b]) => a.localeCompare(b))) {
  for (const method of HTTP_METHODS) {
    const responses = item[method]?.responses;
    if (!responses) continue;
    const kept = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, responseFacts(response)]));
    (paths[template] ??= {})[method] = { responses: kept };
  }
}

/**
 * The level of the first "New in Zulip X (feature level N)." sentence. The full stop matters:
 * "New in Zulip 12.0 (feature level 481), the `idle_queue_timeout`..." (register-queue) dates a
 * change, not the endpoint. Placeholders such as `e2b257` are not levels.
 */
function featureLevel(description: unknown): number | undefined {
  if (typeof description !== 'string') return undefined;
  const found = /New in Zulip [^()\n]*\(feature level (\d+)\)\./.exec(description);
  return found ? Number(found[1]) : undefined;
}

/** A local `$ref` (to components/parameters, requestBodies...) followed to its target, as written. */
function resolve(value: Schema): Schema {
  if (typeof value.$ref !== 'string') return value;
  const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value.$ref) ?? [];
  const target = section && name ? doc.components[section]?.[name] : undefined;
  if (!target) throw new Error(`unresolvable $ref ${value.$ref}`);
  return resolve(target);
}

/**
 * The fact keywords of a parameter schema with every `$ref` inlined, so that `operations` stands
 * alone (its components may differ from those of the `--responses` file).
 */
function inlineFacts(schema: Schema, depth = 0): Schema {
  if (depth > 30) throw new Error('parameter schema nests too deep (a $ref cycle?)');
  const target = resolve(schema);
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(target)) {
    if (!FACT_KEYWORDS.has(keyword) || keyword === '$ref') continue;
    const inner = (nested: Schema) => inlineFacts(nested, depth + 1);
    if (keyword === 'properties') out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, inner(v)]));
    else if (keyword === 'items' || keyword === 'not' || (keyword === 'additionalProperties' && isObject(value))) out[keyword] = inner(value as Schema);
    else if (keyword === 'allOf' || keyword === 'oneOf' || keyword === 'anyOf') out[keyword] = (value as Schema[]).map(inner);
    else out[keyword] = value;
  }
  return out;
}

function parameterFacts(
  name: string,
  where: ParameterFacts['in'],
  required: boolean,
  json: boolean,
  schema: Schema,
  described: Schema,
): ParameterFacts {
  const out: ParameterFacts = { name, in: where, required, json, schema: inlineFacts(schema) };
  const target = resolve(schema);
  if (target.format === 'binary') out.binary = true;
  if (described.deprecated === true || schema.deprecated === true) out.deprecated = true;
  const level = featureLevel(described.description ?? schema.description);
  if (level !== undefined) out.featureLevel = level;
  return out;
}

function operationParameters(operation: OperationSource): { body?: 'form' | 'multipart'; parameters: ParameterFacts[] } {
  const parameters: ParameterFacts[] = [];
  for (const declared of operation.parameters ?? []) {
    const parameter = resolve(declared);
    const content = parameter.content as Record<string, { schema: Schema }> | undefined;
    const jsonSchema = content?.['application/json']?.schema;
    const where = parameter.in === 'path' ? 'path' : 'query';
    if (parameter.in !== 'path' && parameter.in !== 'query') throw new Error(`parameter ${String(parameter.name)} in ${String(parameter.in)}`);
    const schema = jsonSchema ?? (parameter.schema as Schema | undefined) ?? {};
    parameters.push(parameterFacts(String(parameter.name), where, parameter.required === true, jsonSchema !== undefined, schema, parameter));
  }
  if (!operation.requestBody) return { parameters };
  const content = resolve(operation.requestBody).content as Record<string, { schema?: Schema; encoding?: Record<string, Schema> }>;
  const multipart = content['multipart/form-data'];
  const form = multipart ?? content['application/x-www-form-urlencoded'];
  if (!form) throw new Error(`request body of ${String(operation.operationId)} is ${Object.keys(content).join(', ')}`);
  const body = form.schema ? resolve(form.schema) : {};
  const required = new Set((body.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((body.properties as Record<string, Schema> | undefined) ?? {})) {
    const json = form.encoding?.[name]?.contentType === 'application/json';
    parameters.push(parameterFacts(name, 'body', required.has(name), json, schema, schema));
  }
  return { body: multipart ? 'multipart' : 'form', parameters };
}

const operations: Record<string, unknown> = {};
for (const [template, item] of Object.entries(doc.paths)) {
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (!operation?.operationId) continue;
    const level = featureLevel(operation.description);
    operations[operation.operationId] = {
      method: method.toUpperCase(),
      path: template,
      ...(operation.deprecated === true && { deprecated: true }),
      ...(level !== undefined && { featureLevel: level }),
      ...operationParameters(operation),
    };
  }
}

const components: Record<string, Record<string, Schema>> = {};
while (pending.length > 0) {
  const ref = pending.shift()!;
  const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
  const target = section && name ? responsesDoc.components[section]?.[name] : undefined;
  if (!section || !name || !target) throw new Error(`unresolvable $ref ${ref}`);
  (components[section] ??= {})[name] = section === 'responses' ? responseFacts(target) : facts(target);
}
for (const section of Object.keys(components)) {
  components[section] = Object.fromEntries(Object.entries(components[section]!).sort(([a], [b]) => a.localeCompare(b)));
}

/** One line per operation path and per component: small, and a regeneration diffs line by line. */
function entries(record: Record<string, unknown>, indent: string): string {
  return Object.entries(record)
    .map(([key, value]) => `${indent}${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(',\n');
}
const sections = Object.entries(components).map(([section, record]) => `  ${JSON.stringify(section)}: {\n${entries(record, '   ')}\n  }`);
const sortedOperations = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
process.stdout.write(
  `{\n "source": "zulip/zulip zerver/openapi/zulip.yaml",\n "paths": {\n${entries(paths, '  ')}\n },\n "operations": {\n${entries(sortedOperations, '  ')}\n },\n "components": {\n${sections.join(',\n')}\n }\n}\n`,
);
