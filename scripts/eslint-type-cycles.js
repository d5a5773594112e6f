// The import cycles eslint-plugin-import's `import/no-cycle` leaves out: those that go through an
// `import type`. That rule skips type-only imports by design (they vanish at run time) and has no
// option to keep them, but a type-only loop still ties its modules together: none of them can be
// read, moved or tested alone. This rule reports only what import/no-cycle does not (a cycle with
// at least one type-only import in it), so that a plain cycle is not reported twice.
import fs from 'node:fs';
import path from 'node:path';
import tseslint from 'typescript-eslint';

/** The source file a relative import names (NodeNext: `./x.js` is `./x.ts`), as scripts/eslint-resolver.cjs. */
function resolve(source, file) {
  if (!source.startsWith('.')) return undefined; // a cycle never goes through a package
  const target = path.resolve(path.dirname(file), source);
  return [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, path.join(target, 'index.ts')].find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
}

/** Whether a declaration imports or re-exports types only (TypeScript then drops it from the output). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** The static imports and re-exports of a module body: `{ node, target, typeOnly }`. */
function edges(body, file) {
  const found = [];
  for (const node of body) {
    if (!['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(node.type) || !node.source) continue;
    const target = resolve(node.source.value, file);
    if (target) found.push({ node, target, typeOnly: typeOnly(node) });
  }
  return found;
}

/** Makes the rule; its cache of parsed modules (keyed by path and mtime) lives as long as the config. */
export function typeCycleRule() {
  const cache = new Map();

  function edgesOf(file) {
    const mtimeMs = fs.statSync(file).mtimeMs;
    const hit = cache.get(file);
    if (hit?.mtimeMs === mtimeMs) return hit.edges;
    let body = [];
    try {
      body = tseslint.parser.parseForESLint(fs.readFileSync(file, 'utf8'), { sourceType: 'module', ecmaVersion: 'latest' }).ast.body;
    } catch {
      // unparsable: the file's own lint run reports it
    }
    const found = edges(body, file).map(({ target, typeOnly }) => ({ target, typeOnly }));
    cache.set(file, { mtimeMs, edges: found });
    return found;
  }

  /** A route of modules from `from` to `to` (breadth first, so the shortest), or undefined. */
  function route(from, to, valuesOnly) {
    const previous = new Map([[from, undefined]]);
    const queue = [from];
    while (queue.length > 0) {
      const file = queue.shift();
      if (file === to) {
        const steps = [];
        for (let at = file; at !== undefined; at = previous.get(at)) steps.unshift(at);
        return steps;
      }
      for (const edge of edgesOf(file)) {
        if ((valuesOnly && edge.typeOnly) || previous.has(edge.target)) continue;
        previous.set(edge.target, file);
        queue.push(edge.target);
      }
    }
    return undefined;
  }

  return {
    meta: {
      type: 'problem',
      docs: { description: 'Forbid import cycles that go through type-only imports (import/no-cycle skips them).' },
      schema: [],
    },
    create(context) {
      const file = context.physicalFilename;
      if (!path.isAbsolute(file)) return {}; // text without a file cannot be part of a cycle
      return {
        Program(program) {
          for (const edge of edges(program.body, file)) {
            if (edge.target === file) continue; // import/no-self-import's
            const back = route(edge.target, file, false);
            if (!back) continue;
            if (!edge.typeOnly && route(edge.target, file, true)) continue; // import/no-cycle's to report
            const names = [file, ...back].map((f) => path.relative(context.cwd, f));
            context.report({ node: edge.node, message: `Import cycle through a type-only import: ${names.join(' → ')}.` });
          }
        },
      };
    },
  };
}
