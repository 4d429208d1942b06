import 'reflect-metadata';
import { WaggleException } from '@waggle/errors';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { DeploymentVariantRequest } from './common.dto';
import {
  RELEASE_LABEL_PATTERN,
  SPLIT_MAX_TARGETS,
  type ReleaseHistoryEntry,
  type ReleaseProtection,
  type SplitTarget,
} from './experiments';
import type { RequestBase } from './run-labels';
import { PRIVATE_RPC_TIMEOUT_MS, patternNames, rpc } from './rpc-contract';

/** The largest version number a caller may name (a PostgreSQL integer). */
const MAX_VERSION = 2_147_483_647;
/** A promotion's or a rollback's reason, as written in the history. */
const MAX_REASON_LENGTH = 1_000;

/** Which version of a prompt variant a run asks for (the spec's decisions: invoke additions). */
export interface VersionSelector {
  version?: number;
  label?: string;
}

/** `label` and `version` on a prompt run's request (invoke, webhook trigger): at most one of them (checkVersionSelector). */
export function WithVersionSelector<TBase extends RequestBase>(Base: TBase) {
  class SelectedVersion extends Base {
    /** Serve the version this label points at (`latest`: the newest; `deployed`: the deployed one). */
    @IsOptional()
    @IsString()
    @Matches(RELEASE_LABEL_PATTERN)
    label?: string;

    /** Serve this version number of the variant. */
    @IsOptional()
    @IsInt()
    @Min(1)
    @Max(MAX_VERSION)
    version?: number;
  }
  return SelectedVersion;
}

/** Both a label and a version: the run cannot serve both, 400 `validation_error` naming them. */
export function checkVersionSelector(selector: VersionSelector): void {
  if (selector.label === undefined || selector.version === undefined) return;
  const problem = { detail: 'release_label_and_version' } as const;
  throw new WaggleException('validation_error', {
    status: 400,
    ...problem,
    details: [
      { field: 'label', messages: [problem] },
      { field: 'version', messages: [problem] },
    ],
  });
}

/** One target of a split as an apply file gives it (validated further by the invocation service: one of variant or version, weights summing to 100). */
export class SplitTargetDto implements SplitTarget {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  variant?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version?: number;

  @IsInt()
  @Min(1)
  @Max(100)
  weight!: number;
}

/** `split` on a variant of an apply file. */
export function SplitField(): PropertyDecorator {
  return (target, property) => {
    IsOptional()(target, property);
    IsArray()(target, property);
    ArrayMinSize(1)(target, property);
    ArrayMaxSize(SPLIT_MAX_TARGETS)(target, property);
    ValidateNested({ each: true })(target, property);
    Type(() => SplitTargetDto)(target, property);
  };
}

/** A variant's split as stored (not versioned, like `publish`): its id changes whenever its targets or weights do. */
export interface StoredSplit {
  id: string;
  targets: SplitTarget[];
}

/** What served a run of a split variant, as its ledger record keeps it. */
export interface ServedSplit {
  id: string;
  /** The variant that was invoked (the split's owner). */
  variant: string;
  target: SplitTarget;
  /** 0 … SPLIT_BUCKETS − 1. */
  bucket: number;
  /** True when the bucket came from the caller's `user` (sticky), false when per request. */
  sticky: boolean;
}

// --- Requests of the private routes -------------------------------------------------------

export class ReleaseVariantRequest extends DeploymentVariantRequest {}

export class ReleaseLabelRequest extends DeploymentVariantRequest {
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label!: string;
}

export class ReleaseLabelVersion {
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version!: number;
}

export class SetReleaseLabelRequest extends ReleaseLabelRequest {
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version!: number;
}

/** `POST …/promote`'s body. */
export class ReleasePromotion {
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version!: number;

  /** The label to move; absent: the deployed version. */
  @IsOptional()
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  @IsOptional()
  @IsString()
  @Length(1, MAX_REASON_LENGTH)
  reason?: string;

  /** Bypasses the release gate; needs a `reason`. */
  @IsOptional()
  @IsBoolean()
  override?: boolean;
}

export class PromoteReleaseRequest extends DeploymentVariantRequest {
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version!: number;

  @IsOptional()
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  @IsOptional()
  @IsString()
  @Length(1, MAX_REASON_LENGTH)
  reason?: string;

  @IsOptional()
  @IsBoolean()
  override?: boolean;
}

/** `POST …/rollback`'s body. */
export class ReleaseRollback {
  @IsOptional()
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  @IsOptional()
  @IsString()
  @Length(1, MAX_REASON_LENGTH)
  reason?: string;
}

export class RollbackReleaseRequest extends DeploymentVariantRequest {
  @IsOptional()
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  @IsOptional()
  @IsString()
  @Length(1, MAX_REASON_LENGTH)
  reason?: string;
}

/** `PUT …/protection`'s body. */
export class ReleaseProtectionSettings {
  @IsDefined()
  @IsBoolean()
  protected!: boolean;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  min_pass_rate?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  max_age_days?: number;
}

export class SetReleaseProtectionRequest extends DeploymentVariantRequest {
  @IsDefined()
  @IsBoolean()
  protected!: boolean;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  min_pass_rate?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  max_age_days?: number;
}

/** A webhook trigger that names a label or a version: which version it pins (asked by the gateway only then). */
export class ResolveTriggerVersionRequest {
  @IsUUID()
  workspace_id!: string;

  @IsUUID()
  prompt_endpoint_id!: string;

  @IsUUID()
  variant_id!: string;

  @IsOptional()
  @IsString()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_VERSION)
  version?: number;
}

export interface TriggerVersion {
  version_id: string;
  version: number;
  variables: string[];
}

/** The answer of a move (promote, rollback, a label set or removed): the history entry it wrote. */
export type ReleaseMove = ReleaseHistoryEntry;

export const ReleaseContracts = {
  history: rpc('invocation.releases.history', ReleaseVariantRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    ReleaseHistoryEntry[]
  >(),
  setLabel: rpc('invocation.releases.label.set', SetReleaseLabelRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<ReleaseMove>(),
  deleteLabel: rpc('invocation.releases.label.delete', ReleaseLabelRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<ReleaseMove>(),
  promote: rpc('invocation.releases.promote', PromoteReleaseRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<ReleaseMove>(),
  rollback: rpc('invocation.releases.rollback', RollbackReleaseRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<ReleaseMove>(),
  getProtection: rpc('invocation.releases.protection.get', ReleaseVariantRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<ReleaseProtection>(),
  setProtection: rpc('invocation.releases.protection.set', SetReleaseProtectionRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<ReleaseProtection>(),
  resolveTrigger: rpc('invocation.releases.trigger-version', ResolveTriggerVersionRequest).returns<TriggerVersion>(),
};

export const ReleasePatterns = patternNames(ReleaseContracts);
