import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RUN_CANCEL_SUBJECT, type CancelRunMessage } from '@waggle/contracts';
import { NatsRpcClient } from './nats-rpc.client';
import type { Subscription } from 'nats';

/**
 * Aborts a run when its streaming client has gone. Every replica hears every cancel
 * message (no queue group); the one holding the run aborts it.
 */
@Injectable()
export class RunCancellation implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunCancellation.name);
  private readonly running = new Map<string, AbortController>();
  private subscription?: Subscription;

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<CancelRunMessage>(RUN_CANCEL_SUBJECT, ({ request_id: requestId }) => {
      const controller = this.running.get(requestId);
      if (!controller) return;
      this.logger.log({ msg: 'run cancelled by its client', request_id: requestId });
      controller.abort(new Error('client disconnected'));
    });
    if (!this.subscription) throw new Error('NATS is not connected');
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** A signal that fires when the run is cancelled; call `done` when the run ends. */
  track(requestId: string): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    this.running.set(requestId, controller);
    return { signal: controller.signal, done: () => this.running.delete(requestId) };
  }
}
