import { Body, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam, ApiResponse } from '@nestjs/swagger';
import {
  KNOWLEDGE_BASE_SEARCH_TYPES,
  KnowledgeBasePatterns,
  send,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseRecord,
  type KnowledgeBaseSearchResponse,
  type KnowledgeBaseSearchType,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import { lastValueFrom, toArray } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { WORKSPACE_NOT_FOUND, WorkspaceResourceController } from '../openapi/workspace-resource.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  CreateKnowledgeBaseBody,
  CreateKnowledgeBaseBodyDoc,
  KnowledgeBaseDeletedDto,
  KnowledgeBaseItemListDto,
  KnowledgeBaseListDto,
  KnowledgeBaseOneDto,
  KnowledgeBaseSearchDto,
  KnowledgeBaseWrittenDto,
  SearchKnowledgeBaseBody,
  UpdateKnowledgeBaseBody,
  UpdateKnowledgeBaseBodyDoc,
} from './knowledge-base.dto';

const KB_PARAM = { name: 'knowledge_base_id', type: String, format: 'uuid', description: 'The knowledge base id' } as const;
const NOT_FOUND = {
  status: 422,
  description: "Knowledge base not found: unknown, deleted, or another workspace's (error_code resource_not_found)",
  type: ErrorBodyDto,
} as const;
const INVALID = { status: 422, description: 'Invalid body (validation_error, missing_required_field)', type: ErrorBodyDto } as const;

/** The spec's "422 invalid search type with error": `error` says so and names the allowed values. */
function invalidSearchType(value: string): WaggleException {
  const params = { value: JSON.stringify(value).slice(0, 100), allowed: KNOWLEDGE_BASE_SEARCH_TYPES.join(', ') };
  const message = `Invalid search type: ${params.value}; use one of ${params.allowed}`;
  return new WaggleException('validation_error', {
    detail: 'invalid_search_type',
    params,
    details: [{ field: 'search_type', messages: [message] }],
  });
}

const isSearchType = (value: string): value is KnowledgeBaseSearchType =>
  (KNOWLEDGE_BASE_SEARCH_TYPES as readonly string[]).includes(value);

/**
 * A workspace's knowledge bases (the spec's "Knowledge bases" and "Knowledge base search"),
 * owned by the knowledge-base service. The workspace is the API key's; the path's must be the same.
 */
@ApiResponse(WORKSPACE_NOT_FOUND)
@WorkspaceResourceController('knowledge_bases', 'knowledge bases')
export class KnowledgeBasesController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's active knowledge bases, oldest first. */
  @Get()
  @ApiOkResponse({ type: KnowledgeBaseListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ knowledge_bases: KnowledgeBaseRecord[] }> {
    return {
      knowledge_bases: await send(this.rpc, KnowledgeBasePatterns.listKnowledgeBases, { workspace_id: request.auth.workspace_id }),
    };
  }

  /** A new knowledge base (defaults hybrid, 0.3, 5), embedded with the workspace's embedding model. */
  @Post()
  @HttpCode(200)
  @ApiBody({ type: CreateKnowledgeBaseBodyDoc })
  @ApiOkResponse({ type: KnowledgeBaseWrittenDto })
  @ApiResponse(INVALID)
  async create(
    @Body() body: CreateKnowledgeBaseBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ message: string; knowledge_base: KnowledgeBaseRecord }> {
    const knowledgeBase = await send(this.rpc, KnowledgeBasePatterns.createKnowledgeBase, {
      workspace_id: request.auth.workspace_id,
      knowledge_base: body.knowledge_base,
    });
    return { message: 'Knowledge base created successfully', knowledge_base: knowledgeBase };
  }

  @Get(':knowledge_base_id')
  @ApiParam(KB_PARAM)
  @ApiOkResponse({ type: KnowledgeBaseOneDto })
  @ApiResponse(NOT_FOUND)
  async get(
    @Param('knowledge_base_id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_base: KnowledgeBaseRecord }> {
    return {
      knowledge_base: await send(this.rpc, KnowledgeBasePatterns.getKnowledgeBase, {
        workspace_id: request.auth.workspace_id,
        knowledge_base_id: id,
      }),
    };
  }

  /** Changes the fields the body names; an absent field keeps its value. */
  @Patch(':knowledge_base_id')
  @ApiParam(KB_PARAM)
  @ApiBody({ type: UpdateKnowledgeBaseBodyDoc })
  @ApiOkResponse({ type: KnowledgeBaseWrittenDto })
  @ApiResponse({ ...INVALID, description: `${INVALID.description}; or Knowledge base not found (resource_not_found)` })
  async update(
    @Param('knowledge_base_id') id: string,
    @Body() body: UpdateKnowledgeBaseBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ message: string; knowledge_base: KnowledgeBaseRecord }> {
    const knowledgeBase = await send(this.rpc, KnowledgeBasePatterns.updateKnowledgeBase, {
      workspace_id: request.auth.workspace_id,
      knowledge_base_id: id,
      knowledge_base: body.knowledge_base,
    });
    return { message: 'Knowledge base updated successfully', knowledge_base: knowledgeBase };
  }

  /** Gone from every read at once; its documents and chunks are removed in the background. */
  @Delete(':knowledge_base_id')
  @ApiParam(KB_PARAM)
  @ApiOkResponse({ type: KnowledgeBaseDeletedDto })
  @ApiResponse(NOT_FOUND)
  async remove(@Param('knowledge_base_id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, KnowledgeBasePatterns.deleteKnowledgeBase, { workspace_id: request.auth.workspace_id, knowledge_base_id: id });
    return { message: 'Knowledge base deleted successfully; its contents are being removed' };
  }

  @Get(':knowledge_base_id/items')
  @ApiParam(KB_PARAM)
  @ApiOkResponse({ type: KnowledgeBaseItemListDto })
  @ApiResponse(NOT_FOUND)
  async items(
    @Param('knowledge_base_id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_base_items: KnowledgeBaseItemRecord[] }> {
    const pages$ = send(this.rpc, KnowledgeBasePatterns.listItems, { workspace_id: request.auth.workspace_id, knowledge_base_id: id });
    return { knowledge_base_items: (await lastValueFrom(pages$.pipe(toArray()))).flat() };
  }

  /** The best chunks for the query, best first, at most search_chunk_limit, each scoring at least search_score_threshold. */
  @Post(':knowledge_base_id/search')
  @HttpCode(200)
  @ApiParam(KB_PARAM)
  @ApiBody({ type: SearchKnowledgeBaseBody })
  @ApiOkResponse({ type: KnowledgeBaseSearchDto })
  @ApiResponse({
    ...INVALID,
    description: `${INVALID.description}, invalid search type (validation_error, error saying so), or Knowledge base not found (resource_not_found)`,
  })
  async search(
    @Param('knowledge_base_id') id: string,
    @Body() body: SearchKnowledgeBaseBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ message: string; response: KnowledgeBaseSearchResponse }> {
    if (!isSearchType(body.search_type)) throw invalidSearchType(body.search_type);
    const response = await send(this.rpc, KnowledgeBasePatterns.search, {
      workspace_id: request.auth.workspace_id,
      knowledge_base_id: id,
      search_query: body.search_query,
      search_type: body.search_type,
      search_chunk_limit: body.search_chunk_limit,
      search_score_threshold: body.search_score_threshold,
    });
    return { message: 'Search completed successfully', response };
  }
}
