/**
 * Fails on breaking schema changes: compares the schema the code builds (as served, print-schema.ts) with a base SDL (by
 * default the committed schema/schema.graphql; CI passes the base branch's copy with --base) using
 * @graphql-inspector/core. A breaking change passes only when schema/intended-breaking-changes.txt
 * lists it (`<CHANGE_TYPE> <path>  # why`). Dangerous changes are printed, not fatal.
 *
 *   npx tsx scripts/schema-check.ts [--base old.graphql] [--new new.graphql]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema as buildSdl, printSchema } from 'graphql';
import { servedSchema } from './print-schema.js';

export const INTENDED_FILE = fileURLToPath(new URL('../schema/intended-breaking-changes.txt', import.meta.url));
const SCHEMA_FILE = fileURLToPath(new URL('../schema/schema.graphql', import.meta.url));

/** How a change is named in the allowlist. */
export function changeKey(change: Change): string {
  return `${change.type} ${change.path ?? ''}`.trim();
}

/** The allowlist's keys (comments and blank lines ignored). */
export function parseIntended(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
}

export interface SchemaCheck {
  /** Breaking changes not in the allowlist: the check fails when there are any. */
  breaking: Change[];
  allowed: Change[];
  dangerous: Change[];
  safe: Change[];
  /** Allowlist entries that match no change (stale). */
  unused: string[];
}

export async function checkSchema(baseSdl: string, newSdl: string, intended: Set<string>): Promise<SchemaCheck> {
  const changes = await diff(buildSdl(baseSdl), buildSdl(newSdl));
  const result: SchemaCheck = { breaking: [], allowed: [], dangerous: [], safe: [], unused: [] };
  const used = new Set<string>();
  for (const change of changes) {
    const level = change.criticality.level;
    if (level === CriticalityLevel.Breaking) {
      const key = changeKey(change);
      if (intended.has(key)) (used.add(key), result.allowed.push(change));
      else result.breaking.push(change);
    } else if (level === CriticalityLevel.Dangerous) result.dangerous.push(change);
    else result.safe.push(change);
  }
  result.unused = [...intended].filter((key) => !used.has(key));
  return result;
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function main(): Promise<number> {
  const base = readFileSync(option('--base') ?? SCHEMA_FILE, 'utf8');
  const next = option('--new') ? readFileSync(option('--new')!, 'utf8') : printSchema(servedSchema());
  const result = await checkSchema(base, next, parseIntended(readFileSync(INTENDED_FILE, 'utf8')));
  const line = (c: Change) => `  ${changeKey(c)}  (${c.message})`;
  if (result.dangerous.length) console.log(`Dangerous changes (allowed):\n${result.dangerous.map(line).join('\n')}`);
  if (result.allowed.length) console.log(`Intended breaking changes:\n${result.allowed.map(line).join('\n')}`);
  if (result.unused.length) console.log(`Unused entries in ${INTENDED_FILE}:\n${result.unused.map((k) => `  ${k}`).join('\n')}`);
  if (result.breaking.length) {
    console.error(`Breaking changes:\n${result.breaking.map(line).join('\n')}\nList each in ${INTENDED_FILE} with the reason if it is intended.`);
    return 1;
  }
  console.log(`schema check: ${result.safe.length} safe, ${result.dangerous.length} dangerous, ${result.allowed.length} intended breaking changes.`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then((code) => process.exit(code), (error: unknown) => (console.error(error), process.exit(2)));
}
