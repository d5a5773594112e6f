/**
 * The operational endpoints: /health (liveness: the process answers), /readiness (see
 * readiness.ts) and the Prometheus endpoint. One fetch-style handler, served on the GraphQL port by
 * plugins/metrics.ts or on METRICS_PORT by `nodeHandler`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

/**
 * yoga's `healthCheckEndpoint` option: yoga answers its own health path (an empty 200) before any
 * plugin runs, so it is moved to a path nobody probes and /health is ours (a JSON body).
 */
export const YOGA_HEALTH_CHECK_ENDPOINT = '/.yoga-health';

/** Path of the Prometheus endpoint when METRICS_PATH is unset. */
export const DEFAULT_METRICS_PATH = '/metrics';

export interface OpsEndpointsOptions {
  metrics?: GatewayMetrics;
  /** @default DEFAULT_METRICS_PATH */
  metricsPath?: string;
  readiness?: Readiness;
}

export interface OpsResponse {
  status: number;
  contentType: string;
  body: string;
}

/** Answers an operational path, or undefined for any other path. */
export type OpsEndpoints = (method: string, pathname: string) => Promise<OpsResponse> | undefined;

const json = (status: number, value: unknown): OpsResponse => ({ status, contentType: 'application/json', body: JSON.stringify(value) });

export function opsEndpoints(options: OpsEndpointsOptions): OpsEndpoints {
  const metricsPath = options.metricsPath ?? DEFAULT_METRICS_PATH;
  return (method, pathname) => {
    const known = pathname === '/health' || pathname === '/readiness' || (options.metrics && pathname === metricsPath);
    if (!known) return undefined;
    if (method !== 'GET' && method !== 'HEAD') return Promise.resolve(json(405, { error: 'use GET' }));
    if (pathname === '/health') return Promise.resolve(json(200, { status: 'ok' }));
    if (pathname === '/readiness') {
      if (!options.readiness) return Promise.resolve(json(200, { ready: true }));
      return options.readiness.check().then((report) => json(report.ready ? 200 : 503, report));
    }
    return options.metrics!.scrape().then(({ contentType, body }) => ({ status: 200, contentType, body }));
  };
}

/** A fetch Response for an ops path (yoga plugin), or undefined. */
export async function opsFetchResponse(endpoints: OpsEndpoints, request: Request, url: URL): Promise<Response | undefined> {
  const answer = endpoints(request.method, url.pathname);
  if (!answer) return undefined;
  const { status, contentType, body } = await answer;
  return new Response(request.method === 'HEAD' ? null : body, { status, headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}

/** A node:http handler for a separate metrics port (404 for anything else). */
export function nodeHandler(endpoints: OpsEndpoints): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    const answer = endpoints(req.method ?? 'GET', pathname) ?? Promise.resolve(json(404, { error: 'not found' }));
    answer.then(
      ({ status, contentType, body }) => {
        res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"internal"}');
      },
    );
  };
}
