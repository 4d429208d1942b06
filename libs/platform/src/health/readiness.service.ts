import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorFunction } from '@nestjs/terminus';
import { DependencyIndicators } from './indicators';
import { ShutdownState } from './shutdown-state';

export type Dependency = 'postgres' | 'nats' | 'redis';
export const APP_DEPENDENCIES = Symbol('APP_DEPENDENCIES');
export const READINESS_REPORTERS = Symbol('READINESS_REPORTERS');

/**
 * Adds a section to `/health/ready` that informs without deciding readiness, such as
 * the gateway's view of each domain service: one service down must not take every
 * gateway replica out of its load balancer.
 */
export interface ReadinessReporter {
  readonly section: string;
  report(): Promise<Record<string, unknown>>;
}

/** Checks the real dependencies this app uses; not ready while shutting down. */
@Injectable()
export class ReadinessService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: DependencyIndicators,
    private readonly shutdown: ShutdownState,
    @Inject(APP_DEPENDENCIES) private readonly dependencies: readonly Dependency[],
    @Inject(READINESS_REPORTERS) private readonly reporters: readonly ReadinessReporter[],
  ) {}

  private checks(): HealthIndicatorFunction[] {
    return this.dependencies.map((dependency) => {
      switch (dependency) {
        case 'postgres':
          return () => this.indicators.postgres();
        case 'nats':
          return () => this.indicators.nats();
        case 'redis':
          return () => this.indicators.redisPing();
      }
    });
  }

  /** The terminus result, whether or not every check passed. */
  async evaluate(): Promise<{ ready: boolean; result: HealthCheckResult }> {
    let result: HealthCheckResult;
    try {
      result = await this.health.check(this.checks());
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      result = error.getResponse() as HealthCheckResult;
    }
    if (this.shutdown.draining) {
      return { ready: false, result: { ...result, status: 'shutting_down' } };
    }
    return { ready: result.status === 'ok', result };
  }

  /** evaluate() plus every reporter's section, as `/health/ready` answers. */
  async report(): Promise<{ ready: boolean; body: Record<string, unknown> }> {
    const [{ ready, result }, sections] = await Promise.all([
      this.evaluate(),
      Promise.all(this.reporters.map(async (reporter) => [reporter.section, await reporter.report()] as const)),
    ]);
    return { ready, body: { ...result, ...Object.fromEntries(sections) } };
  }
}
