import type { WaggleException } from '@waggle/errors';

/** The WaggleException a call rejected with; a call that resolves fails the test. */
export function failure(promise: Promise<unknown>): Promise<WaggleException> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as WaggleException,
  );
}
