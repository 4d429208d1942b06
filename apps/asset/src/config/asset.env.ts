import { EnvVar, ServiceEnv } from '@waggle/platform';
import { IsBoolean, IsIn, IsString, Length, ValidateIf } from 'class-validator';

export const ASSET_STORAGE_DRIVERS = ['filesystem', 's3'] as const;
export type AssetStorageDriver = (typeof ASSET_STORAGE_DRIVERS)[number];

export class AssetEnv extends ServiceEnv {
  override PORT: number = 3104;

  @EnvVar(
    'Where asset bytes are kept: filesystem (a local directory, the embedded default) or s3 (S3-compatible object storage, for replicas that share nothing local)',
  )
  @IsIn(ASSET_STORAGE_DRIVERS)
  ASSET_STORAGE_DRIVER: AssetStorageDriver = 'filesystem';

  @EnvVar("The filesystem driver's directory (relative to the working directory, or absolute); created when missing")
  @IsString()
  @Length(1, 4096)
  ASSET_STORAGE_DIR: string = 'var/assets';

  @EnvVar("The s3 driver's bucket (it must exist)")
  @ValidateIf((env: AssetEnv) => env.ASSET_STORAGE_DRIVER === 's3')
  @IsString()
  @Length(3, 255)
  ASSET_S3_BUCKET: string = '';

  @EnvVar("The s3 driver's endpoint URL for an S3-compatible server (MinIO, R2, ...); empty = AWS S3 of ASSET_S3_REGION")
  @IsString()
  ASSET_S3_ENDPOINT: string = '';

  @EnvVar("The s3 driver's region")
  @IsString()
  @Length(1, 64)
  ASSET_S3_REGION: string = 'us-east-1';

  @EnvVar("The s3 driver's access key id; empty = the AWS default credential chain (e.g. an IAM role)")
  @IsString()
  ASSET_S3_ACCESS_KEY_ID: string = '';

  @EnvVar("The s3 driver's secret access key (with ASSET_S3_ACCESS_KEY_ID)", { secret: true })
  @IsString()
  ASSET_S3_SECRET_ACCESS_KEY: string = '';

  @EnvVar(
    'Address the s3 bucket in the path (http://host/bucket/key) rather than as a subdomain; most self-hosted S3-compatible servers need true',
  )
  @IsBoolean()
  ASSET_S3_FORCE_PATH_STYLE: boolean = false;
}
