import 'reflect-metadata';
import { IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { ListPage, WorkspaceIdRequest } from './common.dto';
import { patternNames, rpc } from './rpc-contract';

/** decisions: the largest asset an upload may carry (larger answers 413 validation_error). */
export const ASSET_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/**
 * The NATS JetStream object store bucket that carries file bytes between processes: the
 * gateway streams an upload into it and the asset service streams it out into its storage;
 * the asset service stages an asset there for a knowledge base's ingestion. A staged object
 * is deleted by whoever consumes it, and the bucket's TTL removes any left behind.
 */
export const FILE_STAGING_BUCKET = 'waggle-file-staging';

/** A staged object's name: a prefix naming who staged it, then a UUID. */
export const STAGED_OBJECT_PATTERN = /^(upload|asset)\/[0-9a-f-]{36}$/;

/** decisions: the asset record in responses. */
export interface AssetRecord {
  id: string;
  /** The uploaded file's name. */
  name: string;
  /** Detected from the bytes, falling back to the declared type. */
  content_type: string;
  size_bytes: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  created_at: string;
}

/** An upload the gateway has staged in FILE_STAGING_BUCKET, to be stored as an asset. */
export class StoreAssetRequest extends WorkspaceIdRequest {
  /** The uploaded file's name (multipart `filename`). */
  @IsString()
  @Length(1, 1024)
  name!: string;

  /** The multipart part's declared Content-Type, used when the bytes say nothing. */
  @IsOptional()
  @IsString()
  @Length(0, 255)
  declared_content_type?: string;

  @IsString()
  @Matches(STAGED_OBJECT_PATTERN)
  staged_object!: string;

  /** The size the gateway counted while staging; the asset service checks it against the object. */
  @IsInt()
  @Min(0)
  @Max(ASSET_MAX_UPLOAD_BYTES)
  size_bytes!: number;
}

/** One asset of a workspace. Any string: one that is no UUID names no asset. */
export class AssetIdRequest extends WorkspaceIdRequest {
  @IsString()
  @Length(1, 100)
  asset_id!: string;
}

/** A page of the workspace's assets, newest first (`before`: an asset id). */
export class AssetPageRequest extends ListPage {
  @IsUUID()
  workspace_id!: string;
}

/** Assets per message of a streamed page (a name may take 1,024 characters; one NATS message holds 1 MiB). */
export const ASSET_PAGE_CHUNK = 500;

/** An asset's bytes copied into FILE_STAGING_BUCKET for another service to read once and delete. */
export interface StagedAsset {
  staged_object: string;
  asset: AssetRecord;
}

/** How long storing an upload may take (hashing it and writing it to the asset storage), ms. */
export const ASSET_STORE_TIMEOUT_MS = 120_000;

/** The asset service: uploads, their storage (filesystem or S3-compatible) and listing. */
export const AssetContracts = {
  /** The workspace's assets, newest first. */
  listAssets: rpc('asset.assets.list', WorkspaceIdRequest).returns<AssetRecord[]>(),
  /**
   * A page of the workspace's assets, newest first (created_at, then id), after `before`'s;
   * streamed in chunks of at most ASSET_PAGE_CHUNK, at least one, possibly empty.
   */
  pageAssets: rpc('asset.assets.page', AssetPageRequest).streams<AssetRecord[]>(),
  /**
   * Moves a staged upload into storage (hashing it and detecting its type on the way) and
   * records it; the staged object is deleted whatever the outcome. 402
   * asset_storage_limit_reached when the workspace's plan storage would be exceeded.
   */
  storeAsset: rpc('asset.assets.store', StoreAssetRequest, { timeoutMs: ASSET_STORE_TIMEOUT_MS }).returns<AssetRecord>(),
  /** 422 resource_not_found "Asset not found" for an unknown or another workspace's asset. */
  getAsset: rpc('asset.assets.get', AssetIdRequest).returns<AssetRecord>(),
  /** Copies an asset's bytes into FILE_STAGING_BUCKET (for knowledge-base ingestion). */
  stageAsset: rpc('asset.assets.stage', AssetIdRequest, { timeoutMs: 60_000 }).returns<StagedAsset>(),
} as const;

export const AssetPatterns = patternNames(AssetContracts);
