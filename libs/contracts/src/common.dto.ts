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
