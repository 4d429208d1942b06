import { Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { APP_ENV, APP_NAME, NatsRpcClient, REDIS_CLIENT, ShutdownFlushes, type BaseEnv } from '@waggle/platform';
import type { AppName } from '@waggle/contracts';
import type Redis from 'ioredis';
import { RunEventLog } from './events/run-event-log';
import { LedgerPublisher } from './ledger/ledger-publisher';

/** Runs recorded while the app drains go out before its NATS connection closes. */
@Injectable()
class LedgerFlush implements OnModuleInit {
  constructor(
    private readonly ledger: LedgerPublisher,
    private readonly flushes: ShutdownFlushes,
  ) {}

  onModuleInit(): void {
    this.flushes.register(() => this.ledger.close());
  }
}

/**
 * The run lifecycle's shared pieces: the request ledger's publisher and, on the app's Redis, the
 * run event log. The gateway, invocation and agent record runs with them; every app imports the
 * module all the same, so every app reports the publisher's gauges (`waggle_ledger_pending_records`,
 * `waggle_ledger_lag_seconds`) and one dashboard query covers them all.
 */
@Global()
@Module({
  providers: [
    {
      provide: LedgerPublisher,
      useFactory: (rpc: NatsRpcClient, env: BaseEnv, app: AppName) =>
        new LedgerPublisher(rpc, { maxPendingRecords: env.LEDGER_MAX_PENDING_RECORDS, publisher: app }),
      inject: [NatsRpcClient, APP_ENV, APP_NAME],
    },
    {
      // Kept events of runs that outlive their client (background streams): apps with Redis only.
      provide: RunEventLog,
      useFactory: (redis: Redis | null) => (redis ? new RunEventLog(redis) : null),
      inject: [REDIS_CLIENT],
    },
    LedgerFlush,
  ],
  exports: [LedgerPublisher, RunEventLog],
})
export class RunLifecycleModule {}
