import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';

/**
 * The bound of a content field (a message, a prompt or instruction, a template): none of its
 * own, only the request body's (decisions, payload sizes: a body up to MAX_JSON_BODY_BYTES,
 * 5 MiB by default, is served end to end). In characters, so the largest default body fits.
 * Names, identifiers and labels keep their own, smaller bounds.
 */
export const MAX_CONTENT_LENGTH = 5 * 1024 * 1024;

/** The page size of a private list whose query sets no `limit`. */
export const DEFAULT_PAGE_LIMIT = 50;

/** How many items a list answers at most (a query string's value is a number too). */
export class ListLimit {
  @IsOptional()
  @Transform(numberFromText)
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

/** One variant of a named deployment (prompt or workflow) of the workspace. */
export class DeploymentVariantRequest extends WorkspaceIdRequest {
  @IsString()
  @Length(1, 200)
  deployment!: string;

  @IsString()
  @Length(1, 200)
  variant!: string;
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

/**
 * A number field that a query string (or a loose client) sends as text: a string that reads as
 * a finite number becomes it; anything else stays as sent and fails the field's number check.
 * For `@Transform(numberFromText)`, in place of `@Type(() => Number)`, whose `Number(value)`
 * throws on an object whose `toString`/`valueOf` are not functions (`{"toString":null}`), a
 * body any client can send.
 */
export function numberFromText({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/** A cursor page of a list, newest first: at most `limit` (default DEFAULT_PAGE_LIMIT) of the rows after `before`'s. */
export class ListPage extends ListLimit {
  /** The next page: the rows older than this one (the last id of the page before); an id not of the list answers none. */
  @IsOptional()
  @IsString()
  @Length(1, 100)
  before?: string;
}
