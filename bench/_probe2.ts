process.env.NODE_ENV ??= 'production';
const { createGateway } = await import('../src/gateway/yoga.js');
const ops = await import('../src/gateway/observability/logger.js');
const gateway = createGateway({ zulipUrl: 'http://127.0.0.1:9', logging: false, graphiql: false, ...(process.env.PROD ? { logger: ops.createLogger({ level: 'info' }) } : {}) });
const yp = (gateway as any).plugins as any[];
console.log('yoga plugins', yp?.length);
for (const p of yp ?? []) console.log(p ? Object.keys(p).filter((k) => typeof p[k] === 'function').join(',') || '(empty)' : String(p));
await gateway.dispose();
