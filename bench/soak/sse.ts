/**
 * The soak's SSE churn: opens a GraphQL-over-SSE subscription (yoga's distinct-connections mode),
 * waits for its first result or `holdMs`, and closes it.
 */

/** Resolves with an error code (HTTP status, or a GraphQL error's code), or undefined when all went well. */
export async function sseFirstEvent(url: string, query: string, headers: Record<string, string>, holdMs: number): Promise<string | undefined> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), holdMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query }),
      signal: abort.signal,
    });
    if (!response.ok) return `HTTP_${response.status}`;
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffer += value;
      const data = buffer.split('\n').find((line) => line.startsWith('data:'));
      if (data === undefined) continue;
      const result = JSON.parse(data.slice(5)) as { errors?: { extensions?: { code?: string } }[] };
      return result.errors ? (result.errors[0]?.extensions?.code ?? 'GRAPHQL_ERROR') : undefined;
    }
  } catch (error) {
    return abort.signal.aborted ? undefined : `CLIENT_${(error as Error).name}`;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
