import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController, ApiOkResponse, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { KnowledgeBasePatterns, ListPage, send, type EmbeddingModelSetting, type KnowledgeBaseItemRecord } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { lastValueFrom, toArray } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { AddKnowledgeBaseItemBody, KnowledgeBaseItemListDto, SetEmbeddingModelBody } from './knowledge-base.dto';

/**
 * First-party: a knowledge base's items a page at a time, for the console's items table. The
 * public list answers every item at once (oldest first); this one pages with a cursor (newest first).
 */
@ApiTags('knowledge_bases')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/knowledge_bases')
@PrivateApiRoute()
export class PrivateKnowledgeBaseItemsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The knowledge base's items, newest first (created_at, then id); the next page after `before`. */
  @Get(':knowledge_base_id/items')
  @ApiParam({ name: 'knowledge_base_id', type: String, format: 'uuid', description: "A knowledge base of the key's workspace" })
  @ApiQuery({ name: 'limit', required: false, type: 'integer', minimum: 1, maximum: 1000, description: 'Default 50' })
  @ApiQuery({ name: 'before', required: false, type: String, description: 'The last item `id` of the page before' })
  @ApiOkResponse({ type: KnowledgeBaseItemListDto })
  @ApiResponse({
    status: 422,
    description: 'An invalid limit or cursor (validation_error), or Knowledge base not found (resource_not_found)',
    type: ErrorBodyDto,
  })
  async items(
    @Param('knowledge_base_id') id: string,
    @Query() query: ListPage,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_base_items: KnowledgeBaseItemRecord[] }> {
    const chunks$ = send(this.rpc, KnowledgeBasePatterns.pageItems, {
      workspace_id: request.auth.workspace_id,
      knowledge_base_id: id,
      ...query,
    });
    return { knowledge_base_items: (await lastValueFrom(chunks$.pipe(toArray()))).flat() };
  }
}

/**
 * First-party management of knowledge bases in the key's workspace (the CLI's `kb` commands do
 * the same over NATS): adding a document from an asset or an https URL, reading one item with
 * its error, and the workspace's embedding model for new knowledge bases.
 */
@ApiExcludeController()
@Controller('v1/private/knowledge_bases')
@PrivateApiRoute()
export class PrivateKnowledgeBasesController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get('embedding_model')
  async embeddingModel(@Req() request: AuthenticatedRequest): Promise<{ embedding_model: EmbeddingModelSetting }> {
    return {
      embedding_model: await send(this.rpc, KnowledgeBasePatterns.getEmbeddingModel, { workspace_id: request.auth.workspace_id }),
    };
  }

  /** 422 unless an active embedding model of the catalog; existing knowledge bases keep theirs. */
  @Put('embedding_model')
  @HttpCode(200)
  async setEmbeddingModel(
    @Body() body: SetEmbeddingModelBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ embedding_model: EmbeddingModelSetting }> {
    const setting = await send(this.rpc, KnowledgeBasePatterns.setEmbeddingModel, {
      workspace_id: request.auth.workspace_id,
      embedding_model: body.embedding_model,
    });
    return { embedding_model: setting };
  }

  /** Queues a document for ingestion; its run_status goes queued → running → completed | failed. */
  @Post(':knowledge_base_id/items')
  @HttpCode(200)
  async addItem(
    @Param('knowledge_base_id') id: string,
    @Body() body: AddKnowledgeBaseItemBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_base_item: KnowledgeBaseItemRecord }> {
    const item = await send(this.rpc, KnowledgeBasePatterns.addItem, {
      workspace_id: request.auth.workspace_id,
      knowledge_base_id: id,
      asset_id: body.asset_id,
      url: body.url,
      name: body.name,
    });
    return { knowledge_base_item: item };
  }

  @Get(':knowledge_base_id/items/:item_id')
  async item(
    @Param('knowledge_base_id') id: string,
    @Param('item_id') itemId: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_base_item: KnowledgeBaseItemRecord }> {
    return {
      knowledge_base_item: await send(this.rpc, KnowledgeBasePatterns.getItem, {
        workspace_id: request.auth.workspace_id,
        knowledge_base_id: id,
        item_id: itemId,
      }),
    };
  }
}
