import type { CreditEntryKind } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change of a workspace's hosted credits by the operator: append-only (a mistake is undone
 * by an adjustment, never by an edit). Runs' costs are not entries: they are the requests' `cost_micros`.
 */
@Entity({ name: 'credit_entries' })
@Index('IDX_credit_entries_workspace_created_at', ['workspaceId', 'createdAt'])
export class CreditEntryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** Micro-USD; negative for an adjustment down. */
  @Column({ name: 'amount_micros', type: 'bigint', transformer: bigintAsNumber })
  amountMicros!: number;

  @Column({ type: 'text' })
  kind!: CreditEntryKind;

  @Column({ type: 'text', nullable: true })
  note!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
