/**
 * Regenerates test/fixtures/zulip-openapi-facts.json, the response-schema facts the tests validate
 * emulator and fixture bodies against (test/helpers/openapi.ts), from Zulip's OpenAPI description
 * (zerver/openapi/zulip.yaml in the zulip/zulip repository, https://zulip.com/api/).
 *
 *   npx tsx scripts/openapi-facts.ts <path-to-zulip.yaml> > test/fixtures/zulip-openapi-facts.json
 *
 * Only facts are kept: per operation and status, the JSON response schema's field names, types,
 * required keys, enums, nullability and structure (allOf/oneOf/anyOf, items, additionalProperties,
 * $ref into the components it reaches). Descriptions, examples and request parameters are dropped.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

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

const [, , source] = process.argv;
if (!source) {
  process.stderr.write('usage: npx tsx scripts/openapi-facts.ts <path-to-zulip.yaml> > test/fixtures/zulip-openapi-facts.json\n');
  process.exit(2);
}
const doc = parse(readFileSync(source, 'utf8'), { maxAliasCount: -1 }) as {
  paths: Record<string, Record<string, { responses?: Record<string, Schema> }>>;
  components: Record<string, Record<string, Schema>>;
};

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
for (const [template, item] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
  for (const method of HTTP_METHODS) {
    const responses = item[method]?.responses;
    if (!responses) continue;
    const kept = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, responseFacts(response)]));
    (paths[template] ??= {})[method] = { responses: kept };
  }
}

const components: Record<string, Record<string, Schema>> = {};
while (pending.length > 0) {
  const ref = pending.shift()!;
  const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
  const target = section && name ? doc.components[section]?.[name] : undefined;
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
process.stdout.write(
  `{\n "source": "zulip/zulip zerver/openapi/zulip.yaml",\n "paths": {\n${entries(paths, '  ')}\n },\n "components": {\n${sections.join(',\n')}\n }\n}\n`,
);
