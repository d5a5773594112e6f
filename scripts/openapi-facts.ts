/**
 * Regenerates test/fixtures/zulip-openapi-facts.json, the response-schema facts the tests validate
 * emulator and fixture bodies against (test/helpers/openapi.ts), from Zulip's OpenAPI description
 * (zerver/openapi/zulip.yaml in the zulip/zulip repository, https://zulip.com/api/).
 *
 *   npx tsx scripts/openapi-facts.ts <zulip.yaml> --level 372 > test/fixtures/zulip-openapi-facts.json
 *
 * `--level` is the feature level the emulator claims by default (src/emulator/context.ts); the
 * fixture records it as `featureLevel`.
 *
 * How one current file describes the API at a feature level. Zulip keeps one OpenAPI file, for its
 * newest release, and dates every change in a "**Changes**" note ("New in Zulip 11.0 (feature
 * level 390).", "Before Zulip 12.0 (feature level 453), this was called `giphy_rating`."). So:
 * - an operation, a property, an event (a `oneOf` alternative) or a component whose note says
 *   "New in Zulip X (feature level N)." with N above `--level` is kept, marked `"x-since": N`;
 *   test/helpers/openapi.ts leaves it out when it validates at a level below N. Newer elements
 *   are kept rather than dropped because a test may raise an emulator's level to reach a newer
 *   operation (navigation views, channel folders), and its answers are then validated there;
 * - the other changes after `--level` (a rename, a removed field, a changed type) cannot be read
 *   off the newer shape, so {@link CHANGES_AFTER} states each one by hand, from its note: the
 *   older shape is added, marked `"x-until": N` (present below N only), next to the newer one
 *   marked `"x-since": N`. CHANGES_AFTER is written for the current file and the level 372; a
 *   newer file or another level means reading the notes again (the script lists every note after
 *   `--level` that neither rule handled, on stderr, for that review);
 * - below `--level` the facts are the API at `--level`: changes between older levels are not
 *   undone (the emulator can claim an older level, and answers in the shapes of `--level` but for
 *   the few differences the gateway relies on).
 *
 * Only facts are kept:
 * - `paths`: per operation and status, the JSON response schema's field names, types, required
 *   keys, enums, nullability and structure (allOf/oneOf/anyOf, items, additionalProperties, $ref
 *   into the components it reaches), and the `x-since`/`x-until` marks above;
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

const [, , source, flag, levelArgument] = process.argv;
const LEVEL = Number(levelArgument);
if (!source || flag !== '--level' || !Number.isInteger(LEVEL) || LEVEL < 0) {
  process.stderr.write('usage: npx tsx scripts/openapi-facts.ts <zulip.yaml> --level <feature level> > test/fixtures/zulip-openapi-facts.json\n');
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

/**
 * The fact keywords of a schema, recursively; `properties` keeps every field name. A schema new
 * after LEVEL is marked `x-since`.
 */
function facts(schema: Schema): Schema {
  const out: Schema = {};
  const since = featureLevel(schema.description);
  if (since !== undefined && since > LEVEL) out['x-since'] = since;
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
    const since = featureLevel(item[method]!.description);
    (paths[template] ??= {})[method] = { ...(since !== undefined && since > LEVEL && { 'x-since': since }), responses: kept };
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
  const target = section && name ? doc.components[section]?.[name] : undefined;
  if (!section || !name || !target) throw new Error(`unresolvable $ref ${ref}`);
  (components[section] ??= {})[name] = section === 'responses' ? responseFacts(target) : facts(target);
}
for (const section of Object.keys(components)) {
  components[section] = Object.fromEntries(Object.entries(components[section]!).sort(([a], [b]) => a.localeCompare(b)));
}

/** The facts node at a JSON pointer ('/components/schemas/Bot'), which must exist. */
function at(pointer: string): Schema {
  let node: unknown = { paths, components };
  for (const part of pointer.split('/').slice(1)) {
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  if (!isObject(node)) throw new Error(`no facts at ${pointer}: CHANGES_AFTER no longer fits the file`);
  return node;
}
const properties = (pointer: string) => at(pointer).properties as Record<string, Schema>;
/** A property present only below `level` (removed, or renamed, at that level). */
function before(level: number, pointer: string, name: string, schema: Schema): void {
  const record = properties(pointer);
  if (name in record) throw new Error(`${pointer} already has ${name}`);
  record[name] = { ...schema, 'x-until': level };
}
/** A property present from `level` on (the new name of a renamed one). */
function since(level: number, pointer: string, name: string): void {
  const record = properties(pointer);
  if (!record[name]) throw new Error(`${pointer} has no ${name}`);
  record[name] = { ...record[name], 'x-since': level };
}
/** A property whose schema changed at `level`: `older` below it, the file's from it on. */
function changed(level: number, pointer: string, name: string, older: Schema): void {
  const record = properties(pointer);
  if (!record[name]) throw new Error(`${pointer} has no ${name}`);
  record[name] = { anyOf: [{ ...older, 'x-until': level }, { ...record[name], 'x-since': level }] };
}

const REGISTER = '/paths/~1register/post/responses/200/content/application~1json/schema/allOf/1';
const EVENTS = '/paths/~1events/get/responses/200/content/application~1json/schema/allOf/1/properties/events/items';
const REALM_UPDATE_DICT = '/paths/~1events/get/responses/200/content/application~1json/schema/allOf/1/properties/events/items/oneOf/67/properties/data';
/**
 * The changes after level 372 that are not "New in" additions, from the current file's notes,
 * each undone for the levels before it. Notes after 372 that change no shape the emulator can
 * answer in are left alone: what a server does (an event now also sent on deactivation, a sorted
 * list, a new permission), the values of an integer or free string (the "J" avatar source, video
 * call providers, the "recent" home view, a group name), milliseconds become seconds in an
 * integer, a `null` channel folder (folders are new at 389), and a `rendered_description` only
 * levels 462 and 463 sent.
 */
const LEGACY_SETTINGS = [
  'available_notification_sounds',
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'emojiset',
  'emojiset_choices',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_drafts_synchronization',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'starred_message_counts',
  'timezone',
  'translate_emoticons',
  'twenty_four_hour_time',
  'web_home_view',
  'wildcard_mentions_notify',
];
function CHANGES_AFTER(): void {
  // 472: an attachment's `message_ids` replaced `messages`, a list of {id, date_sent}.
  const messages = { type: 'object', additionalProperties: false, properties: { date_sent: { type: 'integer' }, id: { type: 'integer' } } };
  since(472, '/components/schemas/Attachment', 'message_ids');
  before(472, '/components/schemas/Attachment', 'messages', { type: 'array', items: messages });
  // 474: a bot's avatar_url, bot_type, email, full_name, is_active, owner_id and api_key were removed.
  const botBase: Record<string, Schema> = {
    full_name: { type: 'string' },
    api_key: { type: 'string' },
    avatar_url: { type: 'string' },
    owner_id: { type: 'integer', nullable: true },
  };
  for (const [name, schema] of Object.entries(botBase)) before(474, '/components/schemas/BasicBotBase', name, schema);
  const restated: Record<string, Schema> = { full_name: {}, api_key: {}, avatar_url: {}, owner_id: { nullable: true }, is_active: { type: 'boolean' } };
  for (const [name, schema] of Object.entries(restated)) before(474, '/components/schemas/BasicBot/allOf/1', name, schema);
  const bot = { ...restated, email: { type: 'string' }, bot_type: { type: 'integer', nullable: true } };
  for (const [name, schema] of Object.entries(bot)) before(474, '/components/schemas/Bot/allOf/1', name, schema);
  // 449: an export's `export_type` was an integer, 1 (public) or 2 (full with consent).
  changed(449, '/components/schemas/RealmExport', 'export_type', { type: 'integer', enum: [1, 2] });
  // 453: `giphy_rating` became `gif_rating_policy`; 442 and 453 renamed the options' list twice.
  since(453, REALM_UPDATE_DICT, 'gif_rating_policy');
  before(453, REALM_UPDATE_DICT, 'giphy_rating', { type: 'integer' });
  since(453, REGISTER, 'realm_gif_rating_policy');
  before(453, REGISTER, 'realm_giphy_rating', { type: 'integer' });
  const options = properties(REGISTER).gif_rating_policy_options!;
  since(453, REGISTER, 'gif_rating_policy_options');
  properties(REGISTER).gif_rating_options = { ...options, 'x-since': 442, 'x-until': 453 };
  before(442, REGISTER, 'giphy_rating_options', options);
  // 408: `twenty_four_hour_time` may be null (the locale's default) from 408 on.
  for (const pointer of [`${REGISTER}/properties/user_settings`, `${REGISTER}/properties/realm_user_settings_defaults`]) {
    changed(408, pointer, 'twenty_four_hour_time', { type: 'boolean' });
  }
  // 439: the top-level copies of user settings (deprecated at 89, sent to clients without the
  // `user_settings_object` capability) were removed; each had the type of its `user_settings` twin.
  const settings = properties(`${REGISTER}/properties/user_settings`);
  for (const name of LEGACY_SETTINGS) before(439, REGISTER, name, settings[name]!);
  // 439: so were the events those clients got for them (https://zulip.com/api/get-events).
  const events = at(EVENTS).oneOf as Schema[];
  const value = { oneOf: [{ type: 'boolean' }, { type: 'integer' }, { type: 'string' }] };
  const legacyEvent = (type: string, name: string, extra: Record<string, Schema>): Schema => ({
    type: 'object',
    'x-until': 439,
    additionalProperties: false,
    properties: {
      id: { $ref: '#/components/schemas/EventIdSchema' },
      type: { allOf: [{ $ref: '#/components/schemas/EventTypeSchema' }, { enum: [type] }] },
      user: { type: 'string' },
      [name]: { type: 'string' },
      setting: value,
      ...extra,
    },
  });
  events.push(
    legacyEvent('update_display_settings', 'setting_name', { language_name: { type: 'string' } }),
    legacyEvent('update_global_notifications', 'notification_name', {}),
  );
}
if (LEVEL === 372) CHANGES_AFTER();
else process.stderr.write(`CHANGES_AFTER is written for level 372, not ${LEVEL}: review the notes below and adapt it\n`);

/**
 * Every note in a response schema that dates a change after LEVEL without being a "New in"
 * sentence, for a review of CHANGES_AFTER when the file or the level changes.
 */
function reportLaterNotes(node: unknown, where: string): void {
  if (Array.isArray(node)) return node.forEach((inner, i) => reportLaterNotes(inner, `${where}/${i}`));
  if (!isObject(node)) return;
  if (typeof node.description === 'string') {
    for (const sentence of node.description.replace(/\s+/g, ' ').split(/(?<=\.) /)) {
      const levels = [...sentence.matchAll(/feature level (\d+)/g)].map((found) => Number(found[1]));
      if (levels.some((level) => level > LEVEL) && !/^(\*\*Changes\*\*: )?New in Zulip [^()]*\(feature level \d+\)\.$/.test(sentence)) {
        process.stderr.write(`${where}: ${sentence}\n`);
      }
    }
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'description' && key !== 'example') reportLaterNotes(value, `${where}/${key}`);
}
for (const [template, item] of Object.entries(doc.paths)) {
  for (const method of HTTP_METHODS) if (item[method]?.responses) reportLaterNotes(item[method]!.responses, `${method} ${template}`);
}
reportLaterNotes(doc.components.schemas, 'components/schemas');
reportLaterNotes(doc.components.responses, 'components/responses');

/** One line per operation path and per component: small, and a regeneration diffs line by line. */
function entries(record: Record<string, unknown>, indent: string): string {
  return Object.entries(record)
    .map(([key, value]) => `${indent}${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(',\n');
}
const sections = Object.entries(components).map(([section, record]) => `  ${JSON.stringify(section)}: {\n${entries(record, '   ')}\n  }`);
const sortedOperations = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
process.stdout.write(
  `{\n "source": "zulip/zulip zerver/openapi/zulip.yaml",\n "featureLevel": ${LEVEL},\n "paths": {\n${entries(paths, '  ')}\n },\n "operations": {\n${entries(sortedOperations, '  ')}\n },\n "components": {\n${sections.join(',\n')}\n }\n}\n`,
);
