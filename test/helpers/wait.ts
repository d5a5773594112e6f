/**
 * Waiting without fixed sleeps: the one helper that polls a condition, bounded (tests, the Redis
 * test server and the benches all use it).
 */

/**
 * Waits until `condition` holds (it may be async), polling every `everyMs` (10 ms); throws after
 * `withinMs`, naming `what` it waited for.
 */
export async function until(condition: () => boolean | Promise<boolean>, withinMs = 5000, what = 'condition', everyMs = 10): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
