import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type Provider, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { AppName } from '@waggle/contracts';
import Redis from 'ioredis';
import { LoggerModule } from 'nestjs-pino';
import type { BaseEnv } from '../config/env';
import { HealthController } from '../health/health.controller';
import { DependencyIndicators, NATS_CONNECTION_SOURCE, REDIS_CLIENT, type NatsConnectionSource } from '../health/indicators';
import {
  APP_DEPENDENCIES,
  READINESS_REPORTERS,
  ReadinessService,
  type Dependency,
  type ReadinessReporter,
} from '../health/readiness.service';
import { ShutdownState } from '../health/shutdown-state';
import { loggerModuleParams } from '../logging/logger-options';
import { LedgerPublisher } from '../ledger/ledger-publisher';
import { exitOnNatsCredentialsRefused } from '../nats/nats-connection';
import { NatsRpcClient } from '../nats/nats-rpc.client';
import { RunEventLog } from '../streams/run-event-log';

export const APP_ENV = Symbol('APP_ENV');
export const APP_NAME = Symbol('APP_NAME');

export interface PlatformOptions {
  app: AppName;
  env: BaseEnv & { REDIS_URL?: string };
  dependencies: readonly Dependency[];
  /** The NATS connection readiness checks: a service's server; by default the RPC client's. */
  nats?: NatsConnectionSource;
  readinessReporters?: Array<Type<ReadinessReporter>>;
  /** How long this app's calls wait when their contract declares no time-out (the gateway's NATS_REQUEST_TIMEOUT_MS). */
  rpcTimeoutMs?: number;
  /** `own`: the app writes its access log itself (the gateway: createAccessLog), without pino-http. */
  accessLog?: 'pino-http' | 'own';
}

@Injectable()
class PlatformConnections implements OnApplicationShutdown {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly ledger: LedgerPublisher,
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // Runs recorded while the app drained go out before the connection closes.
    await this.ledger.close();
    await this.rpc.close().catch(() => undefined);
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}

/**
 * What every app shares: validated config, JSON logging, the NATS RPC client, the request
 * ledger's publisher, Redis where the app uses it (and the run event log on it), and `/health/live` + `/health/ready`.
 */
@Module({})
export class PlatformModule {
  static forApp(options: PlatformOptions): DynamicModule {
    const reporters = options.readinessReporters ?? [];
    const providers: Provider[] = [
      { provide: APP_ENV, useValue: options.env },
      { provide: APP_NAME, useValue: options.app },
      { provide: APP_DEPENDENCIES, useValue: options.dependencies },
      {
        provide: NatsRpcClient,
        useFactory: async () => {
          const client = new NatsRpcClient(options.env, `waggle-${options.app}-client`, {
            onCredentialsRefused: exitOnNatsCredentialsRefused(options.app),
            defaultTimeoutMs: options.rpcTimeoutMs,
          });
          await client.connect();
          return client;
        },
      },
      options.nats
        ? { provide: NATS_CONNECTION_SOURCE, useValue: options.nats }
        : { provide: NATS_CONNECTION_SOURCE, useExisting: NatsRpcClient },
      {
        provide: REDIS_CLIENT,
        useFactory: () => {
          if (!options.dependencies.includes('redis')) return null;
          if (!options.env.REDIS_URL) throw new Error(`${options.app} depends on Redis but its env class has no REDIS_URL`);
          // Commands fail fast while Redis is down instead of queueing without bound.
          return new Redis(options.env.REDIS_URL, {
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            connectionName: `waggle-${options.app}`,
          });
        },
      },
      {
        // Kept events of runs that outlive their client (background streams): apps with Redis only.
        provide: RunEventLog,
        useFactory: (redis: Redis | null) => (redis ? new RunEventLog(redis) : null),
        inject: [REDIS_CLIENT],
      },
      ...reporters,
      { provide: READINESS_REPORTERS, useFactory: (...instances: ReadinessReporter[]) => instances, inject: reporters },
      {
        provide: LedgerPublisher,
        useFactory: (rpc: NatsRpcClient) =>
          new LedgerPublisher(rpc, { maxPendingRecords: options.env.LEDGER_MAX_PENDING_RECORDS, publisher: options.app }),
        inject: [NatsRpcClient],
      },
      PlatformConnections,
      ShutdownState,
      DependencyIndicators,
      ReadinessService,
    ];
    return {
      module: PlatformModule,
      global: true,
      imports: [
        LoggerModule.forRoot(loggerModuleParams(options.app, options.env.LOG_LEVEL, options.accessLog)),
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController],
      providers,
      exports: [
        APP_ENV,
        APP_NAME,
        NatsRpcClient,
        LedgerPublisher,
        REDIS_CLIENT,
        RunEventLog,
        ShutdownState,
        ReadinessService,
        DependencyIndicators,
        NATS_CONNECTION_SOURCE,
      ],
    };
  }
}
