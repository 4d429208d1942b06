import { bigintAsNumber } from '@waggle/database';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A workspace's projection version: raised in the transaction of every budget or rate-limit
 * change (whose row lock also orders concurrent changes of one workspace), so the Redis
 * projection written after a later change always carries a greater version than an earlier one.
 */
@Entity({ name: 'governance_versions' })
export class GovernanceVersionEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;
}
