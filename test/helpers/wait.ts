/** Waiting without fixed sleeps: poll a condition, bounded. */

/** Waits until `condition` holds (it may be async), polling every 10 ms; throws after `withinMs`. */
export async function until(condition: () => boolean | Promise<boolean>, withinMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
