/**
 * Imported first by the entry point (src/main.ts), before any module that loads graphql: graphql-js
 * reads NODE_ENV once, when it is loaded, and skips its development checks (made on every failed
 * type test during execution) only in production; graphql-ws then also keeps internal error
 * messages out of close reasons. So `npm start` and `node dist/main.js` run in production unless
 * NODE_ENV says otherwise (the configuration refuses a value it does not know).
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_NODE_ENV } from './gateway/config/defaults.js';

// Only when this process runs the entry point: tests and benchmarks that import `start()` keep theirs.
const entry = fileURLToPath(import.meta.url).replace(/node-env\.(ts|js)$/, 'main.$1');
if (process.argv[1] === entry) process.env.NODE_ENV ??= DEFAULT_NODE_ENV;
