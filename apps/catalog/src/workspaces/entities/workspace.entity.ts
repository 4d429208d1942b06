import type { AccountLanguage, PlanLimits } from '@waggle/contracts';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumns } from '@waggle/database';
import { PlanEntity } from '../plans/plan.entity';

@Entity({ name: 'workspaces' })
export class WorkspaceEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Index('IDX_workspaces_plan_key')
  @Column({ name: 'plan_key', type: 'text' })
  planKey!: string;

  @ManyToOne(() => PlanEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'plan_key', referencedColumnName: 'key', foreignKeyConstraintName: 'FK_workspaces_plan_key' })
  plan!: PlanEntity;

  /** Account language: error messages are localized into it. */
  @Column({ type: 'text', default: 'en' })
  language!: AccountLanguage;

  /** Operator overrides of plan values; a key present with null lifts that cap. */
  @Column({ name: 'limit_overrides', type: 'jsonb', default: () => "'{}'" })
  limitOverrides!: Partial<PlanLimits>;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
