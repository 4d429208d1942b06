import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A workspace's workflow concurrency slots: how many of its runs are `running` and `queued`.
 * A trigger on `workflow_runs` keeps the counts (every insert, status change and delete of a
 * run, whatever writes it), and admission locks this one row to decide, so the cap is exact
 * across replicas without counting rows under a lock.
 */
@Entity({ name: 'workflow_slots' })
export class WorkflowSlotsEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'integer', default: 0 })
  running!: number;

  @Column({ type: 'integer', default: 0 })
  queued!: number;
}
