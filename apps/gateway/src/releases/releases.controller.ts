import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ReleaseLabelVersion,
  ReleasePatterns,
  ReleasePromotion,
  ReleaseProtectionSettings,
  ReleaseRollback,
  send,
  type ReleaseHistoryEntry,
  type ReleaseMove,
  type ReleaseProtection,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  ReleaseHistoryDto,
  ReleaseHistoryEntryDto,
  ReleaseLabelVersionDoc,
  ReleasePromotionDoc,
  ReleaseProtectionDoc,
  ReleaseProtectionDto,
  ReleaseRollbackDoc,
} from './releases.dto';

const NOT_FOUND = {
  status: 404,
  description: "Deployment, variant, version or label not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;
const INVALID = {
  status: 422,
  description: 'Invalid body or label (validation_error); `latest` and `deployed` are reserved',
  type: ErrorBodyDto,
} as const;
const BAD_REQUEST = {
  status: 400,
  description: 'A body that is not JSON, or an override without a reason (validation_error)',
  type: ErrorBodyDto,
} as const;
const LABEL_PARAM = { name: 'label', type: String, description: 'A label, `^[a-z0-9_.-]{1,36}$`' } as const;

/**
 * A prompt variant's release pointers (the spec's decisions: labels and pointers, release gate),
 * owned by the invocation service; the workspace is the API key's.
 */
@ApiTags('releases')
@ApiBearerAuth()
@ApiParam({ name: 'deployment', type: String, description: "The prompt deployment's name" })
@ApiParam({ name: 'variant', type: String, description: "The variant's name" })
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@ApiResponse(NOT_FOUND)
@Controller('v1/private/prompts/:deployment/variants/:variant')
@PrivateApiRoute()
export class ReleasesController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** Every move of the variant's pointers, newest first. */
  @Get('history')
  @ApiOkResponse({ type: ReleaseHistoryDto })
  async history(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ history: ReleaseHistoryEntry[] }> {
    return { history: await send(this.rpc, ReleasePatterns.history, { workspace_id: request.auth.workspace_id, deployment, variant }) };
  }

  @Put('labels/:label')
  @ApiParam(LABEL_PARAM)
  @ApiBody({ type: ReleaseLabelVersionDoc })
  @ApiOkResponse({ type: ReleaseHistoryEntryDto, description: 'The history entry of the move' })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(INVALID)
  setLabel(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Param('label') label: string,
    @Body() body: ReleaseLabelVersion,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseMove> {
    return send(this.rpc, ReleasePatterns.setLabel, {
      workspace_id: request.auth.workspace_id,
      deployment,
      variant,
      label,
      version: body.version,
    });
  }

  @Delete('labels/:label')
  @ApiParam(LABEL_PARAM)
  @ApiOkResponse({ type: ReleaseHistoryEntryDto, description: 'The history entry of the removal' })
  @ApiResponse(INVALID)
  deleteLabel(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Param('label') label: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseMove> {
    return send(this.rpc, ReleasePatterns.deleteLabel, { workspace_id: request.auth.workspace_id, deployment, variant, label });
  }

  /** Moves the deployed version (or a label) to a version; a protected variant's deployed version passes the release gate first. */
  @Post('promote')
  @HttpCode(200)
  @ApiBody({ type: ReleasePromotionDoc })
  @ApiOkResponse({ type: ReleaseHistoryEntryDto, description: 'The history entry of the move' })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(INVALID)
  @ApiResponse({
    status: 409,
    description: 'The release gate refused (release_gate_not_satisfied): `details` say what is missing',
    type: ErrorBodyDto,
  })
  promote(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Body() body: ReleasePromotion,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseMove> {
    return send(this.rpc, ReleasePatterns.promote, { workspace_id: request.auth.workspace_id, deployment, variant, ...body });
  }

  /** Back to the pointer's previous target, from its history. */
  @Post('rollback')
  @HttpCode(200)
  @ApiBody({ type: ReleaseRollbackDoc })
  @ApiOkResponse({ type: ReleaseHistoryEntryDto, description: 'The history entry of the move' })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(INVALID)
  @ApiResponse({ status: 409, description: 'Nothing to roll back (release_rollback_unavailable)', type: ErrorBodyDto })
  rollback(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Body() body: ReleaseRollback,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseMove> {
    return send(this.rpc, ReleasePatterns.rollback, { workspace_id: request.auth.workspace_id, deployment, variant, ...body });
  }

  @Get('protection')
  @ApiOkResponse({ type: ReleaseProtectionDto })
  protection(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseProtection> {
    return send(this.rpc, ReleasePatterns.getProtection, { workspace_id: request.auth.workspace_id, deployment, variant });
  }

  @Put('protection')
  @ApiBody({ type: ReleaseProtectionDoc })
  @ApiOkResponse({ type: ReleaseProtectionDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(INVALID)
  protect(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Body() body: ReleaseProtectionSettings,
    @Req() request: AuthenticatedRequest,
  ): Promise<ReleaseProtection> {
    return send(this.rpc, ReleasePatterns.setProtection, { workspace_id: request.auth.workspace_id, deployment, variant, ...body });
  }
}
