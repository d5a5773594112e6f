/** What the entry point (src/main.ts) builds a gateway's observability from. */
export { nodeHandler, opsEndpoints, type OpsEndpoints } from './endpoints.js';
export { createLogger, type Logger } from './logger.js';
export { GatewayMetrics } from './metrics.js';
export { Readiness } from './readiness.js';
export { GatewayTracing } from './tracing.js';
