import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ReleaseHistoryEntry, ReleaseProtection } from '@waggle/contracts';

// What the OpenAPI document says about the release routes (the spec's decisions: labels and
// pointers, release gate). The bodies are validated with the contract's classes; these describe them.

const LABEL = '^[a-z0-9_.-]{1,36}$';

export class ReleaseLabelVersionDoc {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version the label points at' })
  version!: number;
}

export class ReleasePromotionDoc {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version to promote' })
  version!: number;

  @ApiPropertyOptional({ pattern: LABEL, description: 'The label to move; absent (or `deployed`): the deployed version' })
  label?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000, description: 'Why, kept in the history; required with `override`' })
  reason?: string;

  @ApiPropertyOptional({ description: 'Bypasses the release gate of a protected variant (recorded in the history)' })
  override?: boolean;
}

export class ReleaseRollbackDoc {
  @ApiPropertyOptional({ pattern: LABEL, description: 'The label to roll back; absent: the deployed version' })
  label?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000 })
  reason?: string;
}

export class ReleaseProtectionDto implements ReleaseProtection {
  @ApiProperty({ description: 'Promotions to the deployed version need a passing experiment run; applies only stage' })
  protected!: boolean;

  @ApiProperty({ minimum: 0, maximum: 1, default: 1, description: "The pass rate the run's candidate must reach" })
  min_pass_rate!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 365, default: 7, description: 'How many days old the run may be' })
  max_age_days!: number;
}

export class ReleaseProtectionDoc {
  @ApiProperty()
  protected!: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 1 })
  min_pass_rate?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 365, default: 7 })
  max_age_days?: number;
}

export class ReleaseHistoryEntryDto implements ReleaseHistoryEntry {
  @ApiProperty({ example: 'deployed', description: '`deployed` or a label' })
  pointer!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The version before the move; null when the pointer had none' })
  from!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The version after the move; null when a label was removed' })
  to!: number | null;

  @ApiProperty({ example: 'api_key:0190f5a1-b2c3-7d4e-8f90-a1b2c3d4e5f6', description: '`api_key:<id>` (private API) or `operator` (CLI)' })
  actor!: string;

  @ApiProperty({ type: 'string', nullable: true })
  reason!: string | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The experiment run that let the release gate pass' })
  experiment_run_id!: string | null;

  @ApiProperty({ description: 'The release gate was overridden' })
  override!: boolean;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

export class ReleaseHistoryDto {
  @ApiProperty({ type: [ReleaseHistoryEntryDto], description: 'Newest first' })
  history!: ReleaseHistoryEntryDto[];
}
