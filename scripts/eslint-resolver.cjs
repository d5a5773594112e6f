// An import resolver for eslint-plugin-import that follows TypeScript's NodeNext convention: a
// relative `./x.js` names the source file `./x.ts`. Packages go to the plugin's Node resolver.
const fs = require('node:fs');
const path = require('node:path');
const nodeResolver = require('eslint-import-resolver-node');

exports.interfaceVersion = 2;

function firstFile(candidates) {
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

exports.resolve = (source, file, config) => {
  if (!source.startsWith('.')) return nodeResolver.resolve(source, file, config);
  const target = path.resolve(path.dirname(file), source);
  const found = firstFile([target.replace(/\.js$/, '.ts'), target, `${target}.ts`, path.join(target, 'index.ts')]);
  return found ? { found: true, path: found } : { found: false };
};
