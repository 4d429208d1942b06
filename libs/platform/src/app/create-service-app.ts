import { Module, type DynamicModule, type INestApplication, type INestApplicationContext, type Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import type { NestMicroservice } from '@nestjs/microservices';
import { DEAD_LETTER_OWNERS, queueGroupOf, type DeadLetterOwner, type DomainService } from '@waggle/contracts';
import { Logger } from 'nestjs-pino';
import type { ServiceEnv } from '../config/env';
import { queueRootModule, registerQueues } from '../queues/queue-producer';
import { createDeadLettersController, deadLetterSourcesProvider, type DeadLetterOptions } from '../dead-letters/dead-letters.controller';
import { createHealthPingController } from '../health/health-ping.controller';
import { MetricsController } from '../health/metrics.controller';
import type { Dependency } from '../health/readiness.service';
import { GracefulNatsServer } from '../nats/graceful-nats.server';
import { exitOnNatsCredentialsRefused, natsConnectionOptions } from '../nats/nats-connection';
import { RPC_HANDLERS } from '../nats/rpc-handler';
import { createPayloadPipe } from '../nats/validation';
import { PlatformModule } from './platform.module';

export interface ServiceAppSpec {
  service: DomainService;
  env: ServiceEnv & { REDIS_URL?: string };
  dependencies: readonly Dependency[];
  /**
   * Its schema's TypeORM module, when it has tables (`TypeOrmModule.forRoot` over
   * `serviceDataSourceOptions` from `@waggle/database`). Passed in, not built here, so this
   * library (which the gateway loads) holds no database code.
   */
  database?: DynamicModule;
  /** The service's own feature modules. */
  imports?: Array<Type<unknown> | DynamicModule>;
  /**
   * Where the service keeps dead letters, served as `<service>.dead-letters.list|replay`
   * (only services DEAD_LETTER_SOURCES_BY_OWNER names own any). Its own sources must be
   * exported by one of `imports`.
   */
  deadLetters?: DeadLetterOptions;
  /** BullMQ's key prefix of the service's queues (tests isolate theirs with one); BullMQ's default otherwise. */
  queuePrefix?: string;
}

function isDeadLetterOwner(service: DomainService): service is DeadLetterOwner {
  return (DEAD_LETTER_OWNERS as readonly string[]).includes(service);
}

/**
 * Builds and starts a domain service: NATS request handlers in the queue group named
 * after the service, and an HTTP server that only serves `/health/*` and `/metrics`.
 */
export async function startServiceApp(spec: ServiceAppSpec): Promise<INestApplication> {
  const server = new GracefulNatsServer(
    { ...natsConnectionOptions(spec.env), queue: queueGroupOf(spec.service), name: `waggle-${spec.service}`, maxReconnectAttempts: -1 },
    spec.env.SHUTDOWN_GRACE_MS,
    exitOnNatsCredentialsRefused(spec.service),
    { maxInFlight: spec.env.MAX_RPC_IN_FLIGHT, maxEventLoopDelayMs: spec.env.MAX_EVENT_LOOP_DELAY_MS },
  );

  const deadLetters = spec.deadLetters;
  if (deadLetters && !isDeadLetterOwner(spec.service))
    throw new Error(`${spec.service} owns no dead letters (DEAD_LETTER_SOURCES_BY_OWNER)`);

  @Module({
    imports: [
      PlatformModule.forApp({ app: spec.service, env: spec.env, dependencies: spec.dependencies, nats: server }),
      ...(spec.database ? [spec.database] : []),
      // Every service on Redis may produce or consume jobs: BullMQ's root configuration.
      ...(spec.dependencies.includes('redis') ? [queueRootModule({ prefix: spec.queuePrefix })] : []),
      ...(deadLetters?.queues?.length ? [registerQueues(deadLetters.queues)] : []),
      ...(spec.imports ?? []),
    ],
    controllers: [
      createHealthPingController(spec.service),
      MetricsController,
      ...(deadLetters ? [createDeadLettersController(spec.service as DeadLetterOwner)] : []),
    ],
    providers: deadLetters ? [deadLetterSourcesProvider(spec.service as DeadLetterOwner, deadLetters)] : [],
  })
  class ServiceRootModule {}

  const app = await NestFactory.create(ServiceRootModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // Deferred so the conventions are registered before the NATS handlers are built. A
  // deferred microservice would also run every module's init and bootstrap hooks when it
  // starts, and the HTTP app again on listen (two queue workers, two subscriptions…): the
  // app runs them, once, and the microservice only registers its handlers.
  const microservice = app.connectMicroservice({ strategy: server }, { deferInitialization: true });
  (microservice as NestMicroservice).setIsInitHookCalled(true);
  await app.init();
  serveRpcHandlers(app, server);
  await app.startAllMicroservices();
  await app.listen(spec.env.PORT, spec.env.HOST);
  return app;
}

/**
 * Hands the server every `@RpcHandler` method of this app's controllers, reply and stream
 * patterns alike, each with its payload pipe built once (see `GracefulNatsServer.serve`, the
 * one place that gives a message its trace, context, errors, metrics and heartbeats).
 */
export function serveRpcHandlers(app: INestApplicationContext, server: GracefulNatsServer): void {
  // The app's own controller instances (asking the app for a class it lacks would end the process).
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const methods = wrapper.metatype ? RPC_HANDLERS.get(wrapper.metatype) : undefined;
      if (!methods || !wrapper.instance) continue;
      const instance = wrapper.instance as Record<string | symbol, (request: unknown) => unknown>;
      for (const { pattern, key, kind, request } of methods) {
        if (!request) {
          server.serve(pattern, kind, async (payload) => instance[key](payload));
          continue;
        }
        const pipe = createPayloadPipe(request);
        const metadata = { type: 'body', metatype: request } as const;
        server.serve(pattern, kind, async (payload) => instance[key](await pipe.transform(payload, metadata)));
      }
    }
  }
}
