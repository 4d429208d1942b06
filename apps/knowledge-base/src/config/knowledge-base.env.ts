import { DatabaseEnv, EnvVar, WithProviderCredentials, WithRedis } from '@waggle/platform';
import { IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';

export class KnowledgeBaseEnv extends WithProviderCredentials(WithRedis(DatabaseEnv)) {
  override PORT: number = 3103;

  @EnvVar('Weight of the full-text (BM25) ranking in hybrid search (weighted reciprocal-rank fusion)')
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_FULL_TEXT_WEIGHT: number = 1;

  @EnvVar('Weight of the vector ranking in hybrid search for knowledge bases embedded by a hosted model (OpenAI, Gemini, an OpenAI-compatible host)')
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_VECTOR_WEIGHT: number = 1;

  @EnvVar('Weight of the vector ranking in hybrid search for knowledge bases embedded by the local model: low, so the weak model only breaks near-ties of BM25 (SciFact nDCG@10: 0.02 gives 0.692 against full_text 0.689; 0.5 gives 0.539)')
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_LOCAL_VECTOR_WEIGHT: number = 0.02;

  @EnvVar('Rank constant k of hybrid search\'s reciprocal-rank fusion (weight / (k + rank)): the larger, the flatter')
  @IsInt()
  @Min(1)
  @Max(1000)
  KB_HYBRID_RANK_CONSTANT: number = 60;

  @EnvVar('Chunks each side of a hybrid search proposes before fusion (at least the search limit)')
  @IsInt()
  @Min(1)
  @Max(1000)
  KB_HYBRID_CANDIDATES: number = 50;

  @EnvVar('Chunks embedded per embedding request while indexing an item')
  @IsInt()
  @Min(1)
  @Max(2048)
  KB_EMBEDDING_BATCH_SIZE: number = 64;

  @EnvVar('Worker threads of the local embedding model (universal-sentence-encoder-lite); unset: one per core')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(64)
  LOCAL_EMBEDDING_THREADS?: number;
}
