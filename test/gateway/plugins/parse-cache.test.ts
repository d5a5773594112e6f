/**
 * The parse-and-validation cache is bounded in bytes (plugins/parse-cache.ts): large documents are
 * never cached, and distinct large documents sent by a client without credentials leave a gateway
 * with a 160 MB heap alive and answering.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DocumentTextCache, PARSE_CACHE_LIMITS } from '../../../src/gateway/plugins/parse-cache.js';

describe('DocumentTextCache', () => {
  const limits = { maxDocumentLength: 100, maxTotalLength: 250, maxEntries: 10 };

  it('never caches a document over the length limit', () => {
    const cache = new DocumentTextCache<string>(limits);
    cache.set('x'.repeat(101), 'parsed');
    expect(cache.get('x'.repeat(101))).toBeUndefined();
    cache.set('x'.repeat(100), 'parsed');
    expect(cache.get('x'.repeat(100))).toBe('parsed');
  });

  it('holds at most maxTotalLength characters and maxEntries documents, dropping the least recently used', () => {
    const cache = new DocumentTextCache<number>(limits);
    const text = (i: number) => `${i}`.padEnd(90, '.');
    cache.set(text(1), 1);
    cache.set(text(2), 2);
    expect(cache.get(text(1))).toBe(1); // now the most recently used
    cache.set(text(3), 3); // 270 characters: the oldest, 2, goes
    expect([cache.get(text(1)), cache.get(text(2)), cache.get(text(3))]).toEqual([1, undefined, 3]);
    expect(cache.length).toBeLessThanOrEqual(limits.maxTotalLength);
    const many = new DocumentTextCache<number>({ ...limits, maxTotalLength: 10_000 });
    for (let i = 0; i < 50; i++) many.set(`{ a${i} }`, i);
    expect(many.size).toBe(limits.maxEntries);
    expect(many.get('{ a49 }')).toBe(49);
    expect(many.get('{ a0 }')).toBeUndefined();
  });

  it('has defaults that cache every ordinary operation and stay a few MB', () => {
    expect(PARSE_CACHE_LIMITS.maxDocumentLength).toBeGreaterThanOrEqual(16_384);
    expect(PARSE_CACHE_LIMITS.maxTotalLength).toBeLessThanOrEqual(8 * 1_048_576);
  });
});

describe('distinct large documents under a small heap', () => {
  it('leave a gateway limited to a 160 MB heap alive and answering after 1,000 distinct 100 KB queries', async () => {
    const script = fileURLToPath(new URL('./parse-cache-server.ts', import.meta.url));
    const child = spawn(process.execPath, ['--max-old-space-size=160', '--expose-gc', '--import', 'tsx', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    child.stdin!.on('error', () => undefined); // the process died: reported by the assertions
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let exitCode: number | null | undefined;
    void exited.then((code) => (exitCode = code));
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const nextLine = async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the gateway process ended (exit ${exitCode})`);
      return JSON.parse(value as string) as { url?: string; heapUsed: number };
    };
    const heap = async () => (child.stdin!.write('heap\n'), (await nextLine()).heapUsed);
    try {
      const { url, heapUsed: atStart } = await nextLine();
      const padding = 'x'.repeat(100_000);
      const ask = async (i: number) => {
        const response = await fetch(url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `# ${i} ${padding}\n{ __typename }` }),
        });
        return (await response.json()) as { data?: { __typename: string } };
      };
      // Warm up (the first requests load and compile code), then measure.
      expect((await ask(-1)).data).toEqual({ __typename: 'Query' });
      const before = await heap();
      const count = 1000;
      const deadline = Date.now() + 120_000;
      let next = 0;
      let answered = 0;
      const worker = async () => {
        while (next < count && Date.now() < deadline && exitCode === undefined) {
          const answer = await ask(next++);
          if (answer.data?.__typename === 'Query') answered++;
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      expect(exitCode).toBeUndefined();
      expect(answered).toBe(count);
      const after = await heap();
      expect((await ask(count)).data).toEqual({ __typename: 'Query' });
      console.log(`heap in use after a full GC: ${mb(atStart)} at start, ${mb(before)} before, ${mb(after)} after ${count} distinct 100 KB queries`);
      // 1,000 documents of 100 KB are 100 MB of text: none of it may stay.
      expect(after - before).toBeLessThan(20 * 1_048_576);
    } finally {
      child.stdin!.end('exit\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  }, 180_000);
});

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
