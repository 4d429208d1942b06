import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { RunLifecycleModule } from '@waggle/runs';
import { CallbackDispatcherEnv } from './config/callback-dispatcher.env';
import { dataSourceOptions } from './database/data-source';
import { CallbackDeadLetters } from './deliveries/callback-dead-letters';
import { DeliveriesModule } from './deliveries/deliveries.module';

export interface DispatcherAppOptions {
  /** BullMQ key prefix; tests isolate their queues with one of their own. */
  queuePrefix?: string;
}

/** Builds and starts the dispatcher with a given configuration: what the tests start. */
export function createDispatcherApp(env: CallbackDispatcherEnv, options: DispatcherAppOptions = {}): Promise<INestApplication> {
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'callback-dispatcher',
    env,
    dependencies: ['postgres', 'nats', 'redis'],
    database,
    imports: [RunLifecycleModule, DeliveriesModule.forRoot()],
    queuePrefix: options.queuePrefix,
    deadLetters: { sources: [CallbackDeadLetters] },
  });
}

export function bootstrap(): Promise<INestApplication> {
  return createDispatcherApp(loadConfig(CallbackDispatcherEnv));
}
