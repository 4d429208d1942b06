import { DEFAULT_ATTACHMENT_MAX_BYTES, DEFAULT_ATTACHMENT_TIMEOUT_MS } from '@waggle/documents';
import { EnvVar, ServiceEnv, WithProviderCredentials, WithRedis } from '@waggle/platform';
import { IsInt, IsNumber, IsOptional, IsString, Length, Max, Min } from 'class-validator';

export class KnowledgeBaseEnv extends WithProviderCredentials(WithRedis(ServiceEnv)) {
  override PORT: number = 3103;

  @EnvVar('The embedding model (a catalog model id) of new knowledge bases when their workspace sets none')
  @IsString()
  @Length(1, 200)
  KB_EMBEDDING_MODEL: string = 'universal-sentence-encoder-lite';

  @EnvVar('Tokens of one chunk of a knowledge base document at most (gpt-tokenizer counts)')
  @IsInt()
  @Min(32)
  @Max(8192)
  KB_CHUNK_TOKENS: number = 400;

  @EnvVar('Tokens each chunk repeats of the end of the one before it')
  @IsInt()
  @Min(0)
  @Max(4096)
  KB_CHUNK_OVERLAP_TOKENS: number = 50;

  @EnvVar('Knowledge base items ingested at once by each knowledge-base replica')
  @IsInt()
  @Min(1)
  @Max(64)
  KB_INGEST_CONCURRENCY: number = 2;

  @EnvVar(
    "Attempts of one item's ingestion that fails for a reason other than an outage of Waggle's own dependencies (the embedding provider's errors, a fetch time-out or 5xx); after the last the item is failed with its error and its job dead-lettered (replayable). An outage of PostgreSQL, NATS or Redis is waited out without spending attempts; an unreadable document fails at once",
  )
  @IsInt()
  @Min(1)
  @Max(100)
  KB_INGEST_ATTEMPTS: number = 5;

  @EnvVar('First wait before an ingestion is tried again (ms); doubled at each attempt')
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  KB_INGEST_BACKOFF_MS: number = 2_000;

  @EnvVar('How long a worker holds an ingestion or cleanup job without renewing its lock before another worker takes it over (ms)')
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  KB_JOB_LOCK_MS: number = 60_000;

  @EnvVar(
    'Chunks (with their postings and vectors) a deleted knowledge base loses per cleanup transaction; items are deleted in batches of the same size',
  )
  @IsInt()
  @Min(1)
  @Max(100_000)
  KB_CLEANUP_BATCH_SIZE: number = 500;

  @EnvVar(
    'Hosts, IP addresses and CIDR ranges knowledge base documents may be fetched from although they are not public (comma-separated; e.g. 127.0.0.1 in development and tests). https is required either way',
  )
  @IsString()
  KB_URL_ALLOWLIST: string = '';

  @EnvVar('Largest knowledge base document fetched from a URL (bytes)')
  @IsInt()
  @Min(1024)
  KB_URL_MAX_BYTES: number = DEFAULT_ATTACHMENT_MAX_BYTES;

  @EnvVar('Time cap of one knowledge base document fetch, redirects and body included (ms)')
  @IsInt()
  @Min(100)
  @Max(600_000)
  KB_URL_TIMEOUT_MS: number = DEFAULT_ATTACHMENT_TIMEOUT_MS;

  @EnvVar(
    'A PEM file of extra certificate authorities trusted for knowledge base document fetches (besides the public ones and NODE_EXTRA_CA_CERTS); verification stays on',
  )
  @IsString()
  KB_URL_EXTRA_CA_FILE: string = '';

  @EnvVar('Weight of the full-text (BM25) ranking in hybrid search (weighted reciprocal-rank fusion)')
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_FULL_TEXT_WEIGHT: number = 1;

  @EnvVar(
    'Weight of the vector ranking in hybrid search for knowledge bases embedded by a hosted model (OpenAI, Gemini, an OpenAI-compatible host)',
  )
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_VECTOR_WEIGHT: number = 1;

  @EnvVar(
    'Weight of the vector ranking in hybrid search for knowledge bases embedded by the local model: low, so the weak model only breaks near-ties of BM25 (SciFact nDCG@10: 0.02 gives 0.692 against full_text 0.689; 0.5 gives 0.539)',
  )
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  KB_HYBRID_LOCAL_VECTOR_WEIGHT: number = 0.02;

  @EnvVar("Rank constant k of hybrid search's reciprocal-rank fusion (weight / (k + rank)): the larger, the flatter")
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
