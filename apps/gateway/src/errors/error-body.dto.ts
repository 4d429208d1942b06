import { ApiProperty } from '@nestjs/swagger';
import type { ErrorBody } from '@waggle/errors';

/** The JSON error shape, as the OpenAPI document describes it. */
export class ErrorBodyDto implements ErrorBody {
  [extra: string]: unknown;

  @ApiProperty({ description: 'Compatibility alias of message' })
  error!: string;

  @ApiProperty({ description: "Human-readable, in the workspace's account language" })
  message!: string;

  @ApiProperty({ description: 'Stable code; clients read this first (see GET /v1/error_codes)', example: 'invalid_api_key' })
  error_code!: string;

  @ApiProperty({ description: 'Deprecated alias of error_code (the official client SDK reads it)' })
  code!: string;
}

/** The daily API cap answer (429). */
export class RateLimitErrorBodyDto extends ErrorBodyDto {
  @ApiProperty({ description: "The workspace's daily request cap", type: 'integer' })
  limit!: number;

  @ApiProperty({ description: 'Requests counted today', type: 'integer' })
  current!: number;
}
