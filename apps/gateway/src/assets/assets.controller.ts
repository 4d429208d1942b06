import { Get, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { AssetPatterns, send, type AssetRecord } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import type { GatewayEnv } from '../config/gateway.env';
import { WORKSPACE_NOT_FOUND, WorkspaceResourceController } from '../openapi/workspace-resource.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { ASSET_UPLOAD_BODY, AssetListDto, AssetUploadedDto } from './asset.dto';
import { AssetUploads } from './asset-uploads';

/**
 * A workspace's assets (the spec's "Assets"), owned by the asset service. An upload is
 * streamed into the staging bucket as it arrives and then stored by the asset service.
 */
@WorkspaceResourceController('assets', 'assets')
export class AssetsController {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly uploads: AssetUploads,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  /** The workspace's assets, newest first. */
  @Get()
  @ApiOkResponse({ type: AssetListDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  async list(@Req() request: AuthenticatedRequest): Promise<{ assets: AssetRecord[] }> {
    return {
      assets: await send(this.rpc, AssetPatterns.listAssets, { workspace_id: request.auth.workspace_id }),
    };
  }

  /** Uploads one file (multipart field `file`, at most 50 MiB); its type is detected from the bytes and its SHA-256 recorded. */
  @Post()
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @ApiBody(ASSET_UPLOAD_BODY)
  @ApiOkResponse({ type: AssetUploadedDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  @ApiResponse({ status: 400, description: 'Malformed multipart body (invalid_request)', type: ErrorBodyDto })
  @ApiResponse({
    status: 402,
    description: "The workspace's plan asset storage would be exceeded (asset_storage_limit_reached)",
    type: ErrorBodyDto,
  })
  @ApiResponse({ status: 413, description: 'The file is larger than 50 MiB (validation_error)', type: ErrorBodyDto })
  @ApiResponse({
    status: 422,
    description:
      'No file sent (missing_required_field, `error` naming `file`), or a file in another field or more than one (validation_error)',
    type: ErrorBodyDto,
  })
  async upload(@Req() request: AuthenticatedRequest): Promise<{ message: string; asset: AssetRecord }> {
    const upload = await this.uploads.receive(request);
    try {
      const asset = await send(
        this.rpc,
        AssetPatterns.storeAsset,
        {
          workspace_id: request.auth.workspace_id,
          name: upload.name,
          declared_content_type: upload.declaredContentType,
          staged_object: upload.stagedObject,
          size_bytes: upload.sizeBytes,
        },
        { timeoutMs: this.env.ASSET_STORE_TIMEOUT_MS },
      );
      return { message: 'Asset uploaded successfully', asset };
    } catch (error) {
      // The asset service deletes what it receives; this covers a request it never got (the
      // bucket's TTL covers the rest).
      await this.uploads.discard(upload).catch(() => undefined);
      throw error;
    }
  }
}
