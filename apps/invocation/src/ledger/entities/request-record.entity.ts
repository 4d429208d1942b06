import type { CredentialSource, LedgerRequestType, RunStatus, RunSurface, ServedSplit } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One run in the request ledger: what was asked, of what, by whom, and how it ended. */
@Entity({ name: 'requests' })
@Index('IDX_requests_workspace_generated_at', ['workspaceId', 'generatedAt'])
@Index('IDX_requests_workspace_user', ['workspaceId', 'userLabel'])
@Index('IDX_requests_workspace_model_generated_at', ['workspaceId', 'model', 'generatedAt'])
@Index('IDX_requests_workspace_api_key_generated_at', ['workspaceId', 'apiKeyId', 'generatedAt'])
export class RequestRecordEntity {
  /** `req_` + 32 hex digits (a UUIDv7), made by the gateway. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'request_type', type: 'text' })
  requestType!: LedgerRequestType;

  @Column({ name: 'requestable_type', type: 'text' })
  requestableType!: string;

  @Column({ name: 'requestable_id', type: 'uuid' })
  requestableId!: string;

  @Column({ type: 'text', nullable: true })
  deployment!: string | null;

  @Column({ type: 'text', nullable: true })
  variant!: string | null;

  @Column({ name: 'variant_id', type: 'uuid', nullable: true })
  variantId!: string | null;

  @Column({ name: 'version_id', type: 'uuid', nullable: true })
  versionId!: string | null;

  @Column({ type: 'integer', nullable: true })
  version!: number | null;

  @Column({ type: 'text', nullable: true })
  model!: string | null;

  @Column({ type: 'text' })
  status!: RunStatus;

  /** The last user message as sent to the model. */
  @Column({ type: 'text', nullable: true })
  message!: string | null;

  /** Caller metadata: kept for audit and filtering, never given to the model. */
  @Index('IDX_requests_metadata', { synchronize: false })
  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, string | number | boolean | null>;

  @Column({ name: 'user_label', type: 'text', nullable: true })
  userLabel!: string | null;

  @Column({ name: 'generated_at', type: 'timestamptz' })
  generatedAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  usage!: Record<string, unknown> | null;

  /** The final response, or the error. */
  @Column({ type: 'jsonb', nullable: true })
  data!: Record<string, unknown> | null;

  /** The W3C trace id of the client request that started the run; null for runs recorded before it was kept. */
  @Column({ name: 'trace_id', type: 'text', nullable: true })
  traceId!: string | null;

  /** `openai` for a run the OpenAI-compatible API started, `mcp` for an MCP tool call; null for the native routes. */
  @Column({ type: 'text', nullable: true })
  surface!: RunSurface | null;

  /** What the run's model calls cost, integer micro-USD; null while running, for a run that called no model, or one recorded before costs. */
  @Column({ name: 'cost_micros', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  costMicros!: number | null;

  /** The price version(s) the cost was computed with. */
  @Column({ name: 'price_version', type: 'text', nullable: true })
  priceVersion!: string | null;

  /** The id of the API key that started the run (never the key); null for webhook triggers and older records. */
  @Column({ name: 'api_key_id', type: 'text', nullable: true })
  apiKeyId!: string | null;

  /** Whose provider credentials the run's model calls used; null when it called none. */
  @Column({ type: 'text', nullable: true })
  credentials!: CredentialSource | null;

  /** The label a prompt run named; null when it named none. */
  @Column({ type: 'text', nullable: true })
  label!: string | null;

  /** For a split variant's run: the target that served it; null otherwise. */
  @Column({ type: 'jsonb', nullable: true })
  split!: ServedSplit | null;
}
