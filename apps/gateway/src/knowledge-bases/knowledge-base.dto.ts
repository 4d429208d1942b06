import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import {
  AddKnowledgeBaseItemRequest,
  CreateKnowledgeBaseRequest,
  KNOWLEDGE_BASE_ITEM_RUN_STATUSES,
  KNOWLEDGE_BASE_ITEM_STATUSES,
  KNOWLEDGE_BASE_ITEM_TYPES,
  KNOWLEDGE_BASE_SEARCH_TYPES,
  SEARCH_CHUNK_LIMIT,
  SEARCH_SCORE_THRESHOLD,
  SetEmbeddingModelRequest,
  UpdateKnowledgeBaseRequest,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseItemRunStatus,
  type KnowledgeBaseItemStatus,
  type KnowledgeBaseItemType,
  type KnowledgeBaseRecord,
  type KnowledgeBaseSearchType,
} from '@waggle/contracts';
import { IsInt, IsNumber, IsString, Length, Max, Min } from 'class-validator';

/** `POST …/knowledge_bases`: the contract's create request without the workspace (the key's). */
export class CreateKnowledgeBaseBody extends PickType(CreateKnowledgeBaseRequest, ['knowledge_base'] as const) {}

/** `PATCH …/knowledge_bases/{id}`. */
export class UpdateKnowledgeBaseBody extends PickType(UpdateKnowledgeBaseRequest, ['knowledge_base'] as const) {}

/** `POST /v1/private/knowledge_bases/{id}/items`: exactly one of `asset_id` and `url`. */
export class AddKnowledgeBaseItemBody extends PickType(AddKnowledgeBaseItemRequest, ['asset_id', 'url', 'name'] as const) {}

/** `PUT /v1/private/knowledge_bases/embedding_model`. */
export class SetEmbeddingModelBody extends PickType(SetEmbeddingModelRequest, ['embedding_model'] as const) {}

/**
 * `POST …/knowledge_bases/{id}/search`: the spec requires all four fields. `search_type` is
 * only required to be a string here; the controller refuses a value outside the enum with an
 * `error` that says the search type is invalid (the spec's "422 invalid search type with error").
 */
export class SearchKnowledgeBaseBody {
  @ApiProperty({ minLength: 1, maxLength: 10_000 })
  @IsString()
  @Length(1, 10_000)
  search_query!: string;

  @ApiProperty({ enum: KNOWLEDGE_BASE_SEARCH_TYPES })
  @IsString()
  search_type!: string;

  @ApiProperty({ type: 'integer', minimum: SEARCH_CHUNK_LIMIT.min, maximum: SEARCH_CHUNK_LIMIT.max })
  @IsInt()
  @Min(SEARCH_CHUNK_LIMIT.min)
  @Max(SEARCH_CHUNK_LIMIT.max)
  search_chunk_limit!: number;

  @ApiProperty({ minimum: SEARCH_SCORE_THRESHOLD.min, maximum: SEARCH_SCORE_THRESHOLD.max })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(SEARCH_SCORE_THRESHOLD.min)
  @Max(SEARCH_SCORE_THRESHOLD.max)
  search_score_threshold!: number;
}

// What the OpenAPI document says about the bodies and answers.

export class CreateKnowledgeBaseFieldsDoc {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 10_000 })
  description?: string | null;

  @ApiPropertyOptional({ enum: KNOWLEDGE_BASE_SEARCH_TYPES, default: 'hybrid' })
  search_type?: KnowledgeBaseSearchType;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.3 })
  search_score_threshold?: number;

  @ApiPropertyOptional({
    description: 'An integer 1 to 20 (declared a uuid string by the reference by mistake); a string of digits is accepted as that integer',
    oneOf: [
      { type: 'integer', minimum: 1, maximum: 20 },
      { type: 'string', pattern: '^[0-9]+$' },
    ],
    default: 5,
  })
  search_chunk_limit?: number | string;
}

export class UpdateKnowledgeBaseFieldsDoc {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  name?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 10_000 })
  description?: string | null;

  @ApiPropertyOptional({ enum: KNOWLEDGE_BASE_SEARCH_TYPES })
  search_type?: KnowledgeBaseSearchType;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  search_score_threshold?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 20 })
  search_chunk_limit?: number;
}

export class CreateKnowledgeBaseBodyDoc {
  @ApiProperty({ type: CreateKnowledgeBaseFieldsDoc })
  knowledge_base!: CreateKnowledgeBaseFieldsDoc;
}

export class UpdateKnowledgeBaseBodyDoc {
  @ApiProperty({ type: UpdateKnowledgeBaseFieldsDoc })
  knowledge_base!: UpdateKnowledgeBaseFieldsDoc;
}

class ItemsByStatusDto {
  @ApiProperty({ type: 'integer' })
  queued!: number;

  @ApiProperty({ type: 'integer' })
  running!: number;

  @ApiProperty({ type: 'integer' })
  completed!: number;

  @ApiProperty({ type: 'integer' })
  failed!: number;
}

/** decisions: the knowledge base record. */
export class KnowledgeBaseDto implements KnowledgeBaseRecord {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;

  @ApiProperty({ enum: KNOWLEDGE_BASE_SEARCH_TYPES })
  search_type!: KnowledgeBaseSearchType;

  @ApiProperty()
  search_score_threshold!: number;

  @ApiProperty({ type: 'integer' })
  search_chunk_limit!: number;

  @ApiProperty({ enum: ['active'] })
  status!: 'active';

  @ApiProperty({ type: 'integer', description: 'Active items' })
  items_count!: number;

  @ApiProperty({ type: ItemsByStatusDto, description: 'Active items by run_status (ingestion progress)' })
  items_by_status!: ItemsByStatusDto;

  @ApiProperty({ description: 'The catalog embedding model its chunks are embedded with, fixed at creation' })
  embedding_model!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: "The vectors' length; null until the first item is indexed" })
  embedding_dimensions!: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class KnowledgeBaseItemDto implements KnowledgeBaseItemRecord {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ format: 'uuid' })
  knowledge_base_id!: string;

  @ApiProperty({ enum: KNOWLEDGE_BASE_ITEM_TYPES })
  item_type!: KnowledgeBaseItemType;

  @ApiProperty({ enum: KNOWLEDGE_BASE_ITEM_RUN_STATUSES })
  run_status!: KnowledgeBaseItemRunStatus;

  @ApiProperty({ enum: KNOWLEDGE_BASE_ITEM_STATUSES })
  status!: KnowledgeBaseItemStatus;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why ingestion failed' })
  error!: string | null;

  @ApiProperty({ type: 'integer' })
  chunks_count!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class KnowledgeBaseListDto {
  @ApiProperty({ type: [KnowledgeBaseDto] })
  knowledge_bases!: KnowledgeBaseDto[];
}

export class KnowledgeBaseOneDto {
  @ApiProperty({ type: KnowledgeBaseDto })
  knowledge_base!: KnowledgeBaseDto;
}

export class KnowledgeBaseWrittenDto extends KnowledgeBaseOneDto {
  @ApiProperty({ example: 'Knowledge base created successfully' })
  message!: string;
}

export class KnowledgeBaseDeletedDto {
  @ApiProperty({ example: 'Knowledge base deleted successfully; its contents are being removed' })
  message!: string;
}

export class KnowledgeBaseItemListDto {
  @ApiProperty({ type: [KnowledgeBaseItemDto] })
  knowledge_base_items!: KnowledgeBaseItemDto[];
}

class SearchScoresDto {
  @ApiProperty({ type: 'number', nullable: true })
  full_text!: number | null;

  @ApiProperty({ type: 'number', nullable: true })
  vector!: number | null;
}

class SearchChunkDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  knowledge_base_item_id!: string;

  @ApiProperty()
  item_name!: string;

  @ApiProperty()
  content!: string;

  @ApiProperty({ minimum: 0, maximum: 1 })
  score!: number;

  @ApiProperty({ type: SearchScoresDto })
  scores!: SearchScoresDto;

  @ApiProperty({ type: 'integer' })
  position!: number;
}

class SearchResponseDto {
  @ApiProperty()
  search_query!: string;

  @ApiProperty({ enum: KNOWLEDGE_BASE_SEARCH_TYPES })
  search_type!: KnowledgeBaseSearchType;

  @ApiProperty({ type: [SearchChunkDto] })
  chunks!: SearchChunkDto[];
}

export class KnowledgeBaseSearchDto {
  @ApiProperty({ example: 'Search completed successfully' })
  message!: string;

  @ApiProperty({ type: SearchResponseDto })
  response!: SearchResponseDto;
}
