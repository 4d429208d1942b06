import { ApiProperty, type ApiBodyOptions } from '@nestjs/swagger';
import type { AssetRecord } from '@waggle/contracts';

/** decisions: the asset record. */
export class AssetDto implements AssetRecord {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ description: "The uploaded file's name", example: 'report.pdf' })
  name!: string;

  @ApiProperty({
    description: 'Detected from the bytes, falling back to the declared type, then application/octet-stream',
    example: 'application/pdf',
  })
  content_type!: string;

  @ApiProperty({ example: 48213 })
  size_bytes!: number;

  @ApiProperty({
    description: 'Lowercase hex SHA-256 of the bytes',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  sha256!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class AssetListDto {
  @ApiProperty({ type: [AssetDto] })
  assets!: AssetDto[];
}

export class AssetUploadedDto {
  @ApiProperty({ example: 'Asset uploaded successfully' })
  message!: string;

  @ApiProperty({ type: AssetDto })
  asset!: AssetDto;
}

/** The multipart form of an upload (documentation only: multer reads it). */
export const ASSET_UPLOAD_BODY: ApiBodyOptions = {
  schema: {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', format: 'binary', description: 'The file (at most 50 MiB)' } },
  },
};
