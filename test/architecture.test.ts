/**
 * docs/ARCHITECTURE.md against the source: its resource list is the REST client's resources (each
 * with its schema file or folder), and its plugin table is every plugin factory of
 * src/gateway/plugins/ and every plugin yoga.ts installs. Adding either without its line there fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const doc = read('docs/ARCHITECTURE.md');

/** The text of one `## ` section of the document. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();
const files = (dir: string) => readdirSync(new URL(`../${dir}`, import.meta.url));

describe('docs/ARCHITECTURE.md', () => {
  it('lists every resource of src/zulip/routes/, each with its gateway schema file or folder', () => {
    const listed = [...section('Resource names').matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);
    const routes = files('src/zulip/routes').filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
    expect(sorted(listed)).toEqual(sorted(routes));
    for (const name of routes) {
      expect(existsSync(new URL(`../src/gateway/schema/${name}.ts`, import.meta.url)) || existsSync(new URL(`../src/gateway/schema/${name}/index.ts`, import.meta.url)), name).toBe(true);
    }
  });

  it('lists every plugin factory and every plugin yoga.ts installs, each with its file', () => {
    const rows = [...section('Plugins').matchAll(/^\| `(use[A-Za-z]+)` \| (?:`([a-z-]+\.ts)`|\(graphql-yoga\)) \|/gm)];
    const listed = rows.map((m) => m[1]!);
    const factories = files('src/gateway/plugins').flatMap((file) =>
      [...read(`src/gateway/plugins/${file}`).matchAll(/^export function (use[A-Z]\w*)\(/gm)].map((m) => ({ name: m[1]!, file })),
    );
    const installed = [...read('src/gateway/yoga.ts').matchAll(/\b(use[A-Z]\w*)\(/g)].map((m) => m[1]!);
    expect(sorted(listed)).toEqual(sorted([...factories.map((f) => f.name), ...installed]));
    // Each row names the file that defines it.
    for (const { name, file } of factories) expect(rows.find((m) => m[1] === name)?.[2], name).toBe(file);
  });

  it('names the walks of a query, an event to a frame and an event to a @live re-run, by files that exist', () => {
    for (const title of ['Follow a query, from socket to REST call and back', "Follow an event to a GraphQL subscription's frame", "Follow an event to a `@live` query's re-run"]) {
      const text = section(title);
      const paths = [...text.matchAll(/`((?:gateway|zulip)\/[a-z/-]+\.ts)`/g)].map((m) => m[1]!);
      expect(paths.length, title).toBeGreaterThan(4);
      for (const path of paths) expect(existsSync(new URL(`../src/${path}`, import.meta.url)), path).toBe(true);
    }
  });
});
