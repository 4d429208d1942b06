import { getQueueToken } from '@nestjs/bullmq';
import { Controller, Inject, type OnApplicationShutdown, type Provider, type Type } from '@nestjs/common';
import {
  DEAD_LETTER_SOURCES_BY_OWNER,
  DeadLetterPatterns,
  ListDeadLettersRequest,
  ownerOfDeadLetterSource,
  ReplayDeadLetterRequest,
  type DeadLetterOwner,
  type DeadLetterReplay,
  type DeadLetterSourceName,
  type DeadLetterSummary,
  type QueueName,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { JobQueue } from '../queues/queue-producer';
import { RpcHandler } from '../nats/rpc-handler';
import { isTransientFailure } from '../reliability/failure-kind';
import type { DeadLetterSource } from './dead-letter-source';
import { QueueDeadLetters } from './queue-dead-letters';

const DEFAULT_LIST_LIMIT = 100;

/** What a service keeps dead letters in (see DEAD_LETTER_SOURCES_BY_OWNER). */
export interface DeadLetterOptions {
  /** Queues whose failed sets are listed and replayed as they are (no hook of the owner). */
  queues?: QueueName[];
  /** Sources of the service's own: providers its feature modules export. */
  sources?: Array<Type<DeadLetterSource>>;
}

/** Every dead-letter source of one service, behind its `<service>.dead-letters.*` patterns. */
export class DeadLetterSources implements OnApplicationShutdown {
  constructor(
    private readonly owner: DeadLetterOwner,
    private readonly sources: DeadLetterSource[],
  ) {
    const owned: readonly string[] = DEAD_LETTER_SOURCES_BY_OWNER[owner];
    const names = sources.map((source) => source.source);
    const foreign = names.filter((name) => !owned.includes(name));
    if (foreign.length > 0 || new Set(names).size !== names.length) {
      throw new Error(
        `${owner} serves dead letters of ${names.join(', ')}; it owns ${owned.join(', ')} (DEAD_LETTER_SOURCES_BY_OWNER), each once`,
      );
    }
  }

  async list(request: ListDeadLettersRequest): Promise<DeadLetterSummary[]> {
    const limit = request.limit ?? DEFAULT_LIST_LIMIT;
    const sources = request.source ? [this.named(request.source)] : this.sources;
    const lists = await this.answering(() => Promise.all(sources.map((source) => source.list(limit))));
    return lists
      .flat()
      .sort((a, b) => b.dead_lettered_at.localeCompare(a.dead_lettered_at))
      .slice(0, limit);
  }

  replay(request: ReplayDeadLetterRequest): Promise<DeadLetterReplay> {
    const source = this.named(request.source);
    return this.answering(() => source.replay(request.id));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close?.().catch(() => undefined)));
  }

  private named(name: DeadLetterSourceName): DeadLetterSource {
    const source = this.sources.find((candidate) => candidate.source === name);
    if (source) return source;
    const params = { source: name, owner: ownerOfDeadLetterSource(name), here: this.owner };
    const message = `${name} dead letters are kept by the ${params.owner} service, not ${params.here}`;
    throw new WaggleException('validation_error', {
      detail: 'dead_letters_elsewhere',
      params,
      details: [{ field: 'source', messages: [message] }],
    });
  }

  /** An operator asking while Redis or PostgreSQL is away hears so, rather than an internal error. */
  private async answering<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof WaggleException) && isTransientFailure(error)) {
        throw new WaggleException('upstream_request_failed', {
          status: 503,
          detail: 'dead_letters_unavailable',
          cause: error,
        });
      }
      throw error;
    }
  }
}

/**
 * The provider of a service's dead-letter sources: a failed-set reader per queue named (on the
 * queue registered for it, see `registerQueues`) and the service's own sources, checked against what the contract says
 * the service owns.
 */
export function deadLetterSourcesProvider(owner: DeadLetterOwner, options: DeadLetterOptions): Provider {
  const own = options.sources ?? [];
  const queued = options.queues ?? [];
  return {
    provide: DeadLetterSources,
    useFactory: (...injected: unknown[]) => {
      const queues = injected.slice(0, queued.length) as Array<JobQueue<QueueName>>;
      const sources = injected.slice(queued.length) as DeadLetterSource[];
      return new DeadLetterSources(owner, [...queues.map((queue) => new QueueDeadLetters(queue)), ...sources]);
    },
    inject: [...queued.map((queue) => getQueueToken(queue)), ...own],
  };
}

/**
 * Answers `<owner>.dead-letters.list` and `.replay` over NATS, for the operator CLI: one
 * controller for every owning service (as `createHealthPingController` answers each ping).
 */
export function createDeadLettersController(owner: DeadLetterOwner): Type<unknown> {
  @Controller()
  class DeadLettersController {
    constructor(@Inject(DeadLetterSources) private readonly sources: DeadLetterSources) {}

    @RpcHandler(DeadLetterPatterns.list[owner])
    list(request: ListDeadLettersRequest): Promise<DeadLetterSummary[]> {
      return this.sources.list(request);
    }

    @RpcHandler(DeadLetterPatterns.replay[owner])
    replay(request: ReplayDeadLetterRequest): Promise<DeadLetterReplay> {
      return this.sources.replay(request);
    }
  }
  return DeadLettersController;
}
