/**
 * The query floor of `npm run bench:gateway`: a bare `node:http` server, no framework, that runs
 * the gateway's own schema and resolvers (so the same upstream calls, the same live directory and
 * message cache, the same per-request context) with each document compiled once by graphql-jit.
 * Per request it reads the body, parses its JSON, looks the compiled document up by its text,
 * builds the context from the Authorization header, runs the compiled query and writes the JSON
 * answer. Everything the gateway does besides that (yoga's pipeline: the fetch Request and
 * Response, envelop's hooks, every plugin: body limit, CSRF, limits, credentials check, budget,
 * deadline, masking, upstream report, compression) is what the ratio against it measures.
 *
 * Bench-only: it checks nothing (no limits, no budget, no masking), so it is never a way to serve.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse, validate, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { contextFor } from '../../src/gateway/context.js';
import { LiveDirectories } from '../../src/gateway/directory/live.js';
import { EventHub } from '../../src/gateway/events/hub.js';
import { buildSchema } from '../../src/gateway/schema/index.js';
import { UpstreamServer } from '../../src/gateway/upstream/server.js';

export interface RawServer {
  /** `http://127.0.0.1:port/graphql`. */
  url: string;
  /** The same chat server as the gateway's, with its own live directories (warmed like the gateway's). */
  upstream: UpstreamServer;
  close(): Promise<void>;
}

/** Each document parsed, validated and compiled once, by its text. */
function compiler(schema: GraphQLSchema): (query: string) => CompiledQuery {
  const compiled = new Map<string, CompiledQuery>();
  return (query) => {
    let entry = compiled.get(query);
    if (entry) return entry;
    const document = parse(query);
    const errors = validate(schema, document);
    if (errors.length) throw errors[0];
    const made = compileQuery(schema, document);
    if (!isCompiledQuery(made)) throw new Error(`graphql-jit: ${JSON.stringify(made.errors)}`);
    compiled.set(query, (entry = made));
    return entry;
  };
}

export async function startRawServer(zulipUrl: string): Promise<RawServer> {
  const schema = buildSchema();
  const compile = compiler(schema);
  const hub = new EventHub();
  const upstream = new UpstreamServer({ baseUrl: zulipUrl, directories: (connection) => new LiveDirectories(hub, connection) });
  const answer = async (request: IncomingMessage, response: ServerResponse, body: string) => {
    const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
    const context = { ...contextFor(upstream, upstream.authorizations.get(request.headers.authorization ?? null)), events: hub };
    const result = await compile(query).query(undefined, context, variables ?? {});
    const json = JSON.stringify({ ...result, extensions: { upstreamRequests: context.upstream.requests } });
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    response.end(json);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      answer(request, response, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    upstream,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // As the gateway disposes them: the directories release their queues, then the hub ends, then the pool.
      upstream.directories?.close();
      await hub.close();
      await upstream.close();
    },
  };
}
