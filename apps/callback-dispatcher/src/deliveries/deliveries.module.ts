import { Module, type DynamicModule } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { APP_ENV, REDIS_CLIENT, registerQueues } from '@waggle/platform';
import { CallbackUrlPolicy, createGuardedDispatcher, SecretSealer, WebhookRegistry } from '@waggle/webhooks';
import type Redis from 'ioredis';
import type { CallbackDispatcherEnv } from '../config/callback-dispatcher.env';
import { CallbackDeadLetters } from './callback-dead-letters';
import { CallbackDeliveryProcessor } from './callback-delivery.processor';
import { CallbackSender } from './callback-sender';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { DeliveryWorker } from './delivery-worker.service';
import { DISPATCHER_SETTINGS, dispatcherSettings, type DispatcherSettings } from './dispatcher-settings';
import { RedeliveryQueue } from './redelivery.queue';
import { SigningKeys } from './signing-keys';
import { OutboundDispatcher } from './outbound-dispatcher';

/** Delivers callbacks (the BullMQ worker), answers for the delivery log over NATS, and lists and replays the dead-lettered ones. */
@Module({})
export class DeliveriesModule {
  static forRoot(): DynamicModule {
    return {
      module: DeliveriesModule,
      imports: [registerQueues([QueueNames.callbacks])],
      controllers: [DeliveriesController],
      providers: [
        {
          provide: DISPATCHER_SETTINGS,
          useFactory: (env: CallbackDispatcherEnv) => dispatcherSettings(env),
          inject: [APP_ENV],
        },
        {
          provide: CallbackUrlPolicy,
          useFactory: (settings: DispatcherSettings) => new CallbackUrlPolicy(settings.allowlist),
          inject: [DISPATCHER_SETTINGS],
        },
        {
          provide: OutboundDispatcher,
          useFactory: (policy: CallbackUrlPolicy, settings: DispatcherSettings) =>
            new OutboundDispatcher(createGuardedDispatcher(policy, { connectTimeoutMs: Math.min(settings.timeoutMs, 10_000) })),
          inject: [CallbackUrlPolicy, DISPATCHER_SETTINGS],
        },
        {
          provide: CallbackSender,
          useFactory: (policy: CallbackUrlPolicy, outbound: OutboundDispatcher, settings: DispatcherSettings) =>
            new CallbackSender(policy, outbound.agent, settings.timeoutMs),
          inject: [CallbackUrlPolicy, OutboundDispatcher, DISPATCHER_SETTINGS],
        },
        {
          provide: SigningKeys,
          useFactory: (redis: Redis, env: CallbackDispatcherEnv) => new SigningKeys(new WebhookRegistry(redis), SecretSealer.fromEnv(env)),
          inject: [REDIS_CLIENT, APP_ENV],
        },
        CallbackDeliveryProcessor,
        DeliveryWorker,
        RedeliveryQueue,
        DeliveriesRepository,
        DeliveriesService,
        CallbackDeadLetters,
      ],
      exports: [CallbackDeadLetters],
    };
  }
}
