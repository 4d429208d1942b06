import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import type { EmbeddingModel } from 'ai';
import { Piscina } from 'piscina';

type EmbeddingModelV3 = Extract<EmbeddingModel, { specificationVersion: 'v3' }>;
type EmbedOptions = Parameters<EmbeddingModelV3['doEmbed']>[0];
type EmbedResult = Awaited<ReturnType<EmbeddingModelV3['doEmbed']>>;

/** The models the `local` provider API runs in-process, by provider model id, with their vector length. */
export const LOCAL_EMBEDDING_MODELS: Readonly<Record<string, { dimensions: number }>> = Object.freeze({
  'universal-sentence-encoder-lite': { dimensions: 512 },
});

/** Texts one worker embeds at a time: small enough that every thread gets a share of a batch. */
const TEXTS_PER_TASK = 16;

/**
 * The worker file: beside this module once built. Under jest the library runs from its
 * TypeScript source, which a worker thread cannot load, so it runs the built copy (the
 * integration tier runs after `npm run build`).
 */
function workerFile(): string {
  const beside = join(__dirname, 'local-embedding.worker.js');
  return existsSync(beside) ? beside : join(__dirname, '../../../dist/libs/providers/src/local-embedding.worker.js');
}

/**
 * Worker threads that run the local embedding model, so embedding never blocks the event loop
 * and uses every core. Started on first use; each thread loads the weights once.
 */
export class LocalEmbeddingPool {
  private pool?: Piscina;

  constructor(private readonly size: number = availableParallelism()) {}

  /** One vector per text, in order; the texts are spread over the threads. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    this.pool ??= new Piscina({ filename: workerFile(), minThreads: this.size, maxThreads: this.size, idleTimeout: 60_000 });
    const pool = this.pool;
    const tasks: Array<Promise<number[][]>> = [];
    for (let start = 0; start < texts.length; start += TEXTS_PER_TASK) {
      tasks.push(pool.run(texts.slice(start, start + TEXTS_PER_TASK), signal ? { signal } : {}) as Promise<number[][]>);
    }
    return (await Promise.all(tasks)).flat();
  }

  /** Threads running now (0 before the first embedding). */
  get runningThreads(): number {
    return this.pool?.threads.length ?? 0;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/** An AI SDK embedding model (specification v3) backed by the local pool. */
export class LocalEmbeddingModel implements EmbeddingModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'local';
  readonly maxEmbeddingsPerCall = 256;
  readonly supportsParallelCalls = false;
  private readonly logger = new Logger(LocalEmbeddingModel.name);

  constructor(
    readonly modelId: string,
    private readonly pool: LocalEmbeddingPool,
  ) {
    if (!LOCAL_EMBEDDING_MODELS[modelId]) {
      throw new WaggleException('config_error', {
        detail: 'local_embedding_model_missing',
        params: { model: modelId },
        details: { provider: 'local' },
      });
    }
  }

  async doEmbed(options: EmbedOptions): Promise<EmbedResult> {
    try {
      const embeddings = await this.pool.embed(options.values, options.abortSignal);
      return { embeddings, warnings: [] };
    } catch (error) {
      // The provider failure a caller sees names no cause (a remote provider's could quote
      // credentials); a local one holds none, so its cause is logged here for the operator.
      if (!options.abortSignal?.aborted)
        this.logger.warn(
          { error_name: (error as Error)?.name, error: String((error as Error)?.message ?? error).slice(0, 300) },
          'local embedding failed',
        );
      throw error;
    }
  }
}
