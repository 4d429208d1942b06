import { Logger, Module } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { APP_ENV } from '@waggle/platform';
import { ModelRoutes, ProviderRegistry, toModelRoute } from '@waggle/providers';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import { ChunkEmbedder, ProviderChunkEmbedder } from './chunk-embedder';
import { ChunkIndex } from './chunk-index';
import { ChunkIndexService } from './chunk-index.service';
import { ChunksRepository } from './chunks.repository';
import type { VectorPath } from './vector-path';

/** How vectors are stored and searched, detected once at start. */
export const VECTOR_PATH = Symbol('knowledge-base:vector-path');

/**
 * The search index (ChunkIndex): chunks, BM25 postings and vectors in the service's schema.
 * Needs the app's global ProvidersModule (embeddings) and TypeORM data source.
 */
@Module({
  providers: [
    ChunksRepository,
    {
      provide: VECTOR_PATH,
      useFactory: async (chunks: ChunksRepository): Promise<VectorPath> => {
        const path = await chunks.detectVectorPath();
        new Logger('ChunkIndex').log(
          path.kind === 'pgvector'
            ? `vectors: pgvector (HNSW cosine index per dimension, extension in schema ${path.schema})`
            : 'vectors: exact cosine scan in the service (no pgvector `vector` extension found at migration time)',
        );
        return path;
      },
      inject: [ChunksRepository],
    },
    {
      provide: ChunkEmbedder,
      useFactory: (registry: ProviderRegistry, routes: ModelRoutes, env: KnowledgeBaseEnv) =>
        new ProviderChunkEmbedder(
          registry,
          async (modelId) => {
            const route = await routes.get(modelId);
            if (route.model_type !== 'embedding') {
              throw new WaggleException('config_error', {
                detail: 'not_an_embedding_model',
                params: { model: modelId },
                details: { model: modelId },
              });
            }
            return toModelRoute(route);
          },
          env.KB_EMBEDDING_BATCH_SIZE,
        ),
      inject: [ProviderRegistry, ModelRoutes, APP_ENV],
    },
    {
      provide: ChunkIndex,
      useFactory: (chunks: ChunksRepository, embedder: ChunkEmbedder, path: VectorPath, env: KnowledgeBaseEnv) =>
        new ChunkIndexService(chunks, embedder, path, {
          fusion: {
            fullText: env.KB_HYBRID_FULL_TEXT_WEIGHT,
            vector: env.KB_HYBRID_VECTOR_WEIGHT,
            rankConstant: env.KB_HYBRID_RANK_CONSTANT,
          },
          localVectorWeight: env.KB_HYBRID_LOCAL_VECTOR_WEIGHT,
          hybridCandidates: env.KB_HYBRID_CANDIDATES,
        }),
      inject: [ChunksRepository, ChunkEmbedder, VECTOR_PATH, APP_ENV],
    },
  ],
  exports: [ChunkIndex, VECTOR_PATH],
})
export class IndexModule {}
