import { Controller, Get, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AssetPatterns, send, type AssetRecord } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';
import { ErrorBodyDto, RateLimitErrorBodyDto } from '../errors/error-body.dto';
import { ASSET_UPLOAD_BODY, AssetListDto, AssetUploadedDto } from './asset.dto';
import { AssetUploads } from './asset-uploads';

const WORKSPACE_PARAM = {
  name: 'workspace_id',
  type: String,
  format: 'uuid',
  description: "The API key's workspace; any other answers 404 Workspace not found",
} as const;
const WORKSPACE_NOT_FOUND = { status: 404, description: 'Workspace not found (error_code not_found)', type: ErrorBodyDto } as const;

/**
 * A workspace's assets (the spec's "Assets"), owned by the asset service. An upload is
 * streamed into the staging bucket as it arrives and then stored by the asset service.
 */
@ApiTags('assets')
@ApiBearerAuth()
@ApiParam(WORKSPACE_PARAM)
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@ApiResponse({ status: 429, description: 'Daily API request cap reached', type: RateLimitErrorBodyDto })
@Controller('v1/public/workspaces/:workspace_id/assets')
@MeteredApiRoute()
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
      assets: await send(
        this.rpc,
        AssetPatterns.listAssets,
        { workspace_id: request.auth.workspace_id },
        { timeoutMs: this.env.NATS_REQUEST_TIMEOUT_MS },
      ),
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
