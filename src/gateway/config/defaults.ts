/**
 * The defaults that belong to the configuration itself rather than to a module it configures (the
 * others are exported by their modules: variables.ts reads them all). A data module: it imports
 * nothing, so that both the table and `loadConfig` can read it.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** The values NODE_ENV may take; anything else is a typo, refused at startup. */
export const NODE_ENVS = ['production', 'development', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];
/** `npm start`, `node dist/main.js` and the container all run in production unless told otherwise. */
export const DEFAULT_NODE_ENV: NodeEnv = 'production';

/** A deployment gets APQ (bounded, in memory) unless it asks for trusted documents or none. */
export const DEFAULT_PERSISTED_OPERATIONS = 'apq';

/** service.name of the spans (OTEL_SERVICE_NAME). */
export const DEFAULT_SERVICE_NAME = 'chatgraph';

/** Where OTLP traces go when OTEL_TRACES_EXPORTER=otlp names no endpoint (the OpenTelemetry default). */
export const DEFAULT_OTLP_TRACES_URL = 'http://localhost:4318/v1/traces';
