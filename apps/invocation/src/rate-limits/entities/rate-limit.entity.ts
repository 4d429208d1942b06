import type { RateLimitScope } from '@waggle/contracts';
import { TimestampColumns } from '@waggle/database';
import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Requests and tokens per minute of one API key or one end user (the spec's decisions on usage governance). */
@Entity({ name: 'rate_limits' })
@Index('UQ_rate_limits_workspace_scope', ['workspaceId', 'scope', 'scopeId'], { unique: true })
@Check('CHK_rate_limits_some_rate', '"requests_per_minute" IS NOT NULL OR "tokens_per_minute" IS NOT NULL')
export class RateLimitEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  scope!: RateLimitScope;

  /** The API key's id or the user label. */
  @Column({ name: 'scope_id', type: 'text' })
  scopeId!: string;

  @Column({ name: 'requests_per_minute', type: 'integer', nullable: true })
  requestsPerMinute!: number | null;

  @Column({ name: 'tokens_per_minute', type: 'integer', nullable: true })
  tokensPerMinute!: number | null;
}
