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
import { exitOnNatsCredentialsRefused } from '../nats/nats-connection';
import { NatsRpcClient } from '../nats/nats-rpc.client';

export const APP_ENV = Symbol('APP_ENV');
export const APP_NAME = Symbol('APP_NAME');

/**
 * What must be written out before the app's connections close (a buffer of records bound for
 * NATS): a module registers its flush here, and the app runs every flush, then closes NATS and Redis.
 */
@Injectable()
export class ShutdownFlushes {
  private readonly flushes: Array<() => Promise<void>> = [];

  register(flush: () => Promise<void>): void {
    this.flushes.push(flush);
  }

  async run(): Promise<void> {
    await Promise.all(this.flushes.map((flush) => flush()));
  }
}

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
    private readonly flushes: ShutdownFlushes,
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // What the app recorded while it drained (runs bound for the ledger) goes out before the connection closes.
    await this.flushes.run();
    await this.rpc.close().catch(() => undefined);
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}

/**
 * What every app shares: validated config, JSON logging, the NATS RPC client, Redis where the
 * app uses it, the flushes run before they close, and `/health/live` + `/health/ready`.
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
      ...reporters,
      { provide: READINESS_REPORTERS, useFactory: (...instances: ReadinessReporter[]) => instances, inject: reporters },
      ShutdownFlushes,
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
        REDIS_CLIENT,
        ShutdownFlushes,
        ShutdownState,
        ReadinessService,
        DependencyIndicators,
        NATS_CONNECTION_SOURCE,
      ],
    };
  }
}
