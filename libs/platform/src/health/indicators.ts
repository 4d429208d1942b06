import { Inject, Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorService, TypeOrmHealthIndicator, type HealthIndicatorResult } from '@nestjs/terminus';
import type Redis from 'ioredis';
import type { NatsConnection } from 'nats';

export const NATS_CONNECTION_SOURCE = Symbol('NATS_CONNECTION_SOURCE');
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** Where readiness finds the app's NATS connection (the server's, or the gateway's client). */
export interface NatsConnectionSource {
  connection(): NatsConnection | undefined;
}

export const DEPENDENCY_CHECK_TIMEOUT_MS = 1_000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

@Injectable()
export class DependencyIndicators {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Optional() private readonly typeorm?: TypeOrmHealthIndicator,
    @Optional() @Inject(NATS_CONNECTION_SOURCE) private readonly natsSource?: NatsConnectionSource,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis,
  ) {}

  postgres(): Promise<HealthIndicatorResult> {
    if (!this.typeorm) return Promise.resolve(this.indicators.check('postgres').down({ message: 'not configured' }));
    return this.typeorm.pingCheck('postgres', { timeout: DEPENDENCY_CHECK_TIMEOUT_MS });
  }

  async nats(): Promise<HealthIndicatorResult> {
    const check = this.indicators.check('nats');
    const connection = this.natsSource?.connection();
    if (!connection || connection.isClosed()) return check.down({ message: 'not connected' });
    try {
      const rttMs = await withTimeout(connection.rtt(), DEPENDENCY_CHECK_TIMEOUT_MS, 'NATS');
      return check.up({ rtt_ms: Math.round(rttMs * 100) / 100 });
    } catch (error) {
      return check.down({ message: reason(error) });
    }
  }

  async redisPing(): Promise<HealthIndicatorResult> {
    const check = this.indicators.check('redis');
    if (!this.redis) return check.down({ message: 'not configured' });
    try {
      await withTimeout(this.redis.ping(), DEPENDENCY_CHECK_TIMEOUT_MS, 'Redis');
      return check.up();
    } catch (error) {
      return check.down({ message: reason(error) });
    }
  }
}
