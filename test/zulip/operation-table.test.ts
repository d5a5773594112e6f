/**
 * The hand-written route bindings (src/zulip/routes/*.ts) against the generated operation table
 * (src/zulip/generated/, from Zulip's OpenAPI description with the view overrides of
 * scripts/generate-zulip-api.ts): every `connection.request('<operation-id>', method, path,
 * { name: raw(...) | json(...) })` call is read from the source with the TypeScript parser, and its
 * method and each parameter's declared encoding must agree with the table. Booleans and numbers
 * read the same either way (`true`, `42`), so a difference counts only where the parameter may be a
 * string, a list or an object.
 */
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { camelCase, readFacts, type ParameterFacts } from '../../scripts/generate-zulip-api.js';
import { zulipOperations } from '../../src/zulip/generated/operations.js';
import type { ZulipOperation } from '../../src/zulip/operation.js';

const ROUTES_DIR = new URL('../../src/zulip/routes/', import.meta.url);

interface DeclaredCall {
  file: string;
  operationId: string;
  method: string;
  /** Wire name → the encoder the route calls. */
  params: Map<string, 'raw' | 'json'>;
}

/** The `raw`/`json` encoder called in an initializer (`json(x)`, `cond ? raw(a) : undefined`). */
function encoderIn(node: ts.Node): 'raw' | 'json' | undefined {
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && (node.expression.text === 'raw' || node.expression.text === 'json')) {
    return node.expression.text;
  }
  return ts.forEachChild(node, encoderIn);
}

/** Parameters of an object literal, following spreads and calls of local functions that return one. */
function collectParams(node: ts.Expression, functions: Map<string, ts.FunctionDeclaration>, out: Map<string, 'raw' | 'json'>): void {
  if (ts.isObjectLiteralExpression(node)) {
    for (const property of node.properties) {
      if (ts.isPropertyAssignment(property)) {
        const name = ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined;
        const encoder = encoderIn(property.initializer);
        if (name && encoder) out.set(name, encoder);
      } else if (ts.isSpreadAssignment(property)) {
        collectParams(property.expression, functions, out);
      }
    }
  } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
    const declaration = functions.get(node.expression.text);
    declaration?.body?.forEachChild(function visit(child): void {
      if (ts.isReturnStatement(child) && child.expression) collectParams(child.expression, functions, out);
      else if (!ts.isFunctionLike(child)) child.forEachChild(visit);
    });
  } else if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) {
    collectParams(node.expression, functions, out);
  }
}

function declaredCalls(): DeclaredCall[] {
  const calls: DeclaredCall[] = [];
  for (const file of readdirSync(ROUTES_DIR).filter((name) => name.endsWith('.ts')).sort()) {
    const source = ts.createSourceFile(file, readFileSync(new URL(file, ROUTES_DIR), 'utf8'), ts.ScriptTarget.ES2022, true);
    const functions = new Map<string, ts.FunctionDeclaration>();
    source.forEachChild((node) => {
      if (ts.isFunctionDeclaration(node) && node.name) functions.set(node.name.text, node);
    });
    source.forEachChild(function visit(node): void {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'request' &&
        node.arguments.length >= 3 &&
        ts.isStringLiteral(node.arguments[0]!) &&
        ts.isStringLiteral(node.arguments[1]!)
      ) {
        const params = new Map<string, 'raw' | 'json'>();
        if (node.arguments[3]) collectParams(node.arguments[3], functions, params);
        calls.push({ file, operationId: node.arguments[0].text, method: node.arguments[1].text, params });
      }
      node.forEachChild(visit);
    });
  }
  return calls;
}

/** Whether a value of this schema is written differently by raw() and json(). */
function encodingMatters(schema: Record<string, unknown>): boolean {
  const parts = [schema, ...((schema.oneOf ?? schema.anyOf ?? schema.allOf ?? []) as Record<string, unknown>[])];
  return parts.some((part) => part.type === 'string' || part.type === 'array' || part.type === 'object' || part.properties !== undefined || Array.isArray(part.enum));
}

/**
 * Operation ids of routes that the current file no longer documents: the pre-feature-level-80
 * `PATCH /settings/display` and `PATCH /settings/notifications` (merged into `PATCH /settings`),
 * kept for older servers.
 */
const LEGACY_OPERATIONS = ['settings.ts: update-display-settings', 'settings.ts: update-notification-settings'];

/**
 * Where a route's encoder differs from the table but the wire text is the same. get-subscriptions:
 * released views read `include_subscribers: Json[bool]`; the current file documents the text
 * `"true" | "false" | "partial"`. The route sends a boolean, `true`/`false` either way.
 */
const SAME_WIRE_TEXT = ['get-subscriptions include_subscribers: route json, table raw'];

/**
 * Parameters the routes send that the current file does not document. Zulip's views read the
 * first two (`queue_lifespan_secs: Json[int]` in events_register.py, `slim_presence: Json[bool]` in
 * presence.py). `user_ids` reaches the single-user lookups through the options they share with
 * `GET /users`; the server ignores it there (`ignored_parameters_unsupported`).
 */
const UNDOCUMENTED = ['register-queue queue_lifespan_secs', 'get-user-presence slim_presence', 'get-user user_ids', 'get-user-by-email user_ids'];

const table = zulipOperations as Readonly<Record<string, ZulipOperation>>;
const facts = readFacts();

describe('hand-written routes agree with the generated operation table', () => {
  const calls = declaredCalls();

  it('finds the route calls and their parameters', () => {
    expect(calls.length).toBeGreaterThan(40);
    expect(calls.find((call) => call.operationId === 'get-messages')?.params.get('narrow')).toBe('json');
    expect(calls.find((call) => call.operationId === 'get-messages')?.params.get('anchor')).toBe('raw');
  });

  it('names operations of the current file, with their method', () => {
    const unknown = calls.filter((call) => !table[camelCase(call.operationId)]).map((call) => `${call.file}: ${call.operationId}`);
    expect(unknown).toEqual(LEGACY_OPERATIONS);
    const wrongMethod = calls
      .filter((call) => table[camelCase(call.operationId)] && table[camelCase(call.operationId)]!.method !== call.method)
      .map((call) => `${call.operationId}: route ${call.method}, table ${table[camelCase(call.operationId)]!.method}`);
    expect(wrongMethod).toEqual([]);
  });

  it('encodes each parameter as the table says', () => {
    const disagreements: string[] = [];
    for (const call of calls) {
      const operation = table[camelCase(call.operationId)];
      if (!operation) continue;
      const schemas = new Map<string, ParameterFacts>(facts[call.operationId]!.parameters.map((p) => [p.name, p]));
      for (const [name, encoding] of call.params) {
        const entry = operation.parameters.find((parameter) => parameter.name === name);
        if (!entry || entry.encoding === encoding || !encodingMatters(schemas.get(name)!.schema)) continue;
        disagreements.push(`${call.operationId} ${name}: route ${encoding}, table ${entry.encoding}`);
      }
    }
    expect(disagreements).toEqual(SAME_WIRE_TEXT);
  });

  it('sends only parameters the operation documents', () => {
    const undocumented: string[] = [];
    for (const call of calls) {
      const operation = table[camelCase(call.operationId)];
      if (!operation) continue;
      for (const name of call.params.keys()) {
        if (!operation.parameters.some((parameter) => parameter.name === name)) undocumented.push(`${call.operationId} ${name}`);
      }
    }
    expect(undocumented).toEqual(UNDOCUMENTED);
  });
});
