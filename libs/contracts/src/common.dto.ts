import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

/** How many items a list answers at most (a query string's value is a number too). */
export class ListLimit {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** Any request about one workspace as a whole. */
export class WorkspaceIdRequest {
  @IsUUID()
  workspace_id!: string;
}

/**
 * decisions: create's `max_token` (agents) and `search_chunk_limit` (knowledge bases) are
 * declared "string, format uuid" by an evident slip; each is an integer, and a string of
 * digits is taken as that integer. Anything else stays as sent and fails the integer check.
 * For `@Transform(integerFromDigits)`.
 */
export function integerFromDigits({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value;
}
