import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type KnowledgeBaseIngestJob } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, isTransientFailure, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import { failSpan, inSpan, startSpan } from '@waggle/telemetry';
import type { Span } from '@opentelemetry/api';
import type { Job } from 'bullmq';
import { ChunkIndex } from '../index/chunk-index';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import type { KnowledgeBase, KnowledgeBaseItem } from '../knowledge-bases/knowledge-base';
import { KnowledgeBasesRepository } from '../knowledge-bases/knowledge-bases.repository';
import { chunkText } from './chunker';
import { DocumentSource, UnreadableDocument } from './document-source';

const MAX_ERROR_LENGTH = 1000;

/** The knowledge base was deleted while its item was being indexed: the index transaction is rolled back and the job ends. */
class KnowledgeBaseGone extends Error {}

/** What a failed item's `error` says: the reason when it is one the caller may read, a generic line otherwise. */
function itemError(error: unknown): string {
  if (error instanceof UnreadableDocument || error instanceof WaggleException) return error.message.slice(0, MAX_ERROR_LENGTH);
  const reason = error instanceof Error ? error.message : String(error);
  return `Ingestion failed after every attempt: ${reason}`.slice(0, MAX_ERROR_LENGTH);
}

/**
 * Ends an ingestion's span as failed: a Waggle error by its code, anything else by its class
 * only (a fetch failure's message may name the document's URL, which a span never carries).
 */
function failIngestSpan(span: Span, error: unknown): void {
  if (error instanceof WaggleException) return failSpan(span, error);
  span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown');
  failSpan(span, undefined);
}

/**
 * Ingests knowledge base items (queue `knowledge-base-ingest`, job id = item id): the item
 * `running`, its document fetched and read, chunked token-aware, and handed to the index,
 * which embeds the chunks and writes them in one transaction with the item's completion.
 * A document that cannot be read fails the item at once (its result, not a dead letter). An
 * outage of a dependency (database, NATS, Redis) puts the item back to `queued` and is waited
 * out without spending an attempt (QueueWorker). Any other failure (the embedding provider's,
 * a fetch that timed out, a fault) is tried again with backoff; after the last attempt the
 * item is failed with its error and the job is dead-lettered, so a replay can ingest it once
 * the cause is mended (IngestDeadLetters reopens the item). An item whose knowledge base was
 * deleted is left to the cleanup.
 *
 * Each attempt at an item is one span (`ingest {item id}`), its phases its children: `parse`
 * (the document fetched or staged, and read), `chunk`, then `embed` and `index` (ChunkIndex).
 */
@Injectable()
@QueueProcessor(QueueNames.knowledgeBaseIngest)
export class IngestWorker extends QueueWorker<'knowledge-base-ingest'> {
  constructor(
    private readonly repository: KnowledgeBasesRepository,
    private readonly documents: DocumentSource,
    private readonly index: ChunkIndex,
    @Inject(APP_ENV) private readonly env: KnowledgeBaseEnv,
  ) {
    super({
      queue: QueueNames.knowledgeBaseIngest,
      redisUrl: env.REDIS_URL,
      concurrency: env.KB_INGEST_CONCURRENCY,
      lockMs: env.KB_JOB_LOCK_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
  }

  protected contextOf(job: KnowledgeBaseIngestJob): RequestContextStore {
    return { workspaceId: job.workspace_id };
  }

  protected async handle(job: Job<KnowledgeBaseIngestJob>): Promise<void> {
    const { knowledge_base_id: knowledgeBaseId, item_id: itemId, workspace_id: workspaceId } = job.data;
    const knowledgeBase = await this.repository.findActiveById(knowledgeBaseId);
    if (!knowledgeBase || knowledgeBase.workspaceId !== workspaceId) return;
    const item = await this.repository.findItem(knowledgeBaseId, itemId);
    if (!item || item.runStatus === 'completed' || item.runStatus === 'failed') return;
    const { span, run } = startSpan(`ingest ${item.id}`, {
      'waggle.knowledge_base.id': knowledgeBaseId,
      'waggle.document.id': item.id,
      'waggle.document.source': item.itemType,
      'waggle.ingest.attempt': job.attemptsMade + 1,
    });
    try {
      await run(() => this.ingest(job, knowledgeBase, item, span));
    } catch (error) {
      failIngestSpan(span, error);
      throw error;
    }
  }

  /** One attempt at the item, in its span: the item failed or completed, or thrown for the queue to try again. */
  private async ingest(job: Job<KnowledgeBaseIngestJob>, knowledgeBase: KnowledgeBase, item: KnowledgeBaseItem, span: Span): Promise<void> {
    const knowledgeBaseId = knowledgeBase.id;
    await this.repository.markItem(item.id, { runStatus: 'running', attempt: true });
    const started = performance.now();
    const log = { knowledge_base_id: knowledgeBaseId, item_id: item.id, item_type: item.itemType, attempt: job.attemptsMade + 1 };
    this.logger.log({ ...log, msg: 'knowledge base item ingestion started' });
    try {
      const { text, type } = await inSpan('parse', {}, () => this.documents.text(item));
      span.setAttribute('waggle.document.type', type);
      const chunks = await inSpan('chunk', {}, async (chunkSpan) => {
        const made = chunkText(text, { maxTokens: this.env.KB_CHUNK_TOKENS, overlapTokens: this.env.KB_CHUNK_OVERLAP_TOKENS });
        chunkSpan.setAttribute('waggle.ingest.chunks', made.length);
        return made;
      });
      span.setAttribute('waggle.ingest.chunks', chunks.length);
      const result = await this.index.indexItem(
        {
          id: knowledgeBase.id,
          workspace_id: knowledgeBase.workspaceId,
          embedding_model: knowledgeBase.embeddingModel,
          embedding_dimensions: knowledgeBase.embeddingDimensions,
        },
        { id: item.id, name: item.name },
        chunks,
        async (indexed) => {
          if (!(await this.repository.completeItem(knowledgeBase.id, item.id, indexed))) throw new KnowledgeBaseGone();
        },
      );
      this.logger.log({
        ...log,
        msg: 'knowledge base item completed',
        chunks: result.chunks,
        duration_ms: Math.round(performance.now() - started),
      });
      span.setAttribute('waggle.ingest.status', 'completed');
      span.end();
    } catch (error) {
      if (error instanceof KnowledgeBaseGone) {
        this.logger.log({ ...log, msg: 'knowledge base deleted during ingestion; item left to the cleanup' });
        span.setAttribute('waggle.ingest.status', 'knowledge_base_deleted');
        span.end();
        return;
      }
      // A document that cannot be read fails at once (its result, not a dead letter); any other
      // failure on the last attempt fails the item and dead-letters the job.
      const unreadable = error instanceof UnreadableDocument;
      if (unreadable || (job.attemptsMade + 1 >= (job.opts.attempts ?? 1) && !isTransientFailure(error))) {
        await this.repository.markItem(item.id, { runStatus: 'failed', error: itemError(error) });
        this.logger.warn({
          ...log,
          msg: 'knowledge base item failed',
          error: itemError(error),
          duration_ms: Math.round(performance.now() - started),
        });
        span.setAttribute('waggle.ingest.status', 'failed');
        if (unreadable) {
          failIngestSpan(span, error);
          return;
        }
        throw error;
      }
      // Back to queued until the next attempt (or the end of the outage).
      span.setAttribute('waggle.ingest.status', 'retried');
      await this.repository.markItem(item.id, { runStatus: 'queued' }).catch(() => undefined);
      throw error;
    }
  }
}
