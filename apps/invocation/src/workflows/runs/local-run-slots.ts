import { Inject, Injectable } from '@nestjs/common';
import { APP_ENV } from '@waggle/platform';
import type { InvocationEnv } from '../../config/invocation.env';

/**
 * How many workflow runs this replica executes where they were admitted. A sync run always
 * executes here (its caller waits here); an async one when fewer than
 * WORKFLOW_LOCAL_RUN_CONCURRENCY do, else a queue worker takes it. Once the replica is shutting
 * down, none does.
 */
@Injectable()
export class LocalRunSlots {
  private taken = 0;
  private closed = false;

  constructor(@Inject(APP_ENV) private readonly env: InvocationEnv) {}

  /** Takes a slot for a run about to be admitted, if it is to execute here; give it back with `release`. */
  take(runAsync: boolean): boolean {
    const here = !this.closed && (!runAsync || this.taken < this.env.WORKFLOW_LOCAL_RUN_CONCURRENCY);
    if (here) this.taken += 1;
    return here;
  }

  /** The run no longer executes here (it ended, went elsewhere, or was not admitted running). */
  release(): void {
    this.taken -= 1;
  }

  /** Shutting down: every later run goes to the queue. */
  close(): void {
    this.closed = true;
  }
}
