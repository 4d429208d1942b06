export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Retries an assertion until it passes or the time runs out, then throws its last
 * failure. Used instead of sleeps wherever a test waits for something asynchronous.
 */
export async function expectEventually<T>(assertion: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
