import type { AccountLanguage, PlanLimits } from '@waggle/contracts';
import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumns } from '@waggle/database';
import type { Workspace } from '../workspace';

@Entity({ name: 'workspaces' })
export class WorkspaceEntity extends TimestampColumns implements Workspace {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  /** The plan (by the table's name: the plans are their own feature's). */
  @Index('IDX_workspaces_plan_key')
  @ForeignKey('plans', 'key', { name: 'FK_workspaces_plan_key', onDelete: 'RESTRICT' })
  @Column({ name: 'plan_key', type: 'text' })
  planKey!: string;

  /** Account language: error messages are localized into it. */
  @Column({ type: 'text', default: 'en' })
  language!: AccountLanguage;

  /** Operator overrides of plan values; a key present with null lifts that cap. */
  @Column({ name: 'limit_overrides', type: 'jsonb', default: () => "'{}'" })
  limitOverrides!: Partial<PlanLimits>;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
