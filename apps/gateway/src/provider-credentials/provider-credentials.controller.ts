import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  PROVIDER_CREDENTIAL_PROVIDER_FORMAT,
  ProviderCredentialInput,
  ProviderCredentialPatterns,
  send,
  type ProviderCredentialView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { ProviderCredentialDto, ProviderCredentialInputDoc, ProviderCredentialListDto } from './provider-credential.dto';

/** A provider that cannot name a stored credential answers 404 without asking the invocation service. */
function checkedProvider(provider: string): string {
  if (!PROVIDER_CREDENTIAL_PROVIDER_FORMAT.test(provider)) {
    throw new WaggleException('resource_not_found', {
      detail: 'provider_credential_not_found',
      params: { provider: provider.slice(0, 64) },
    });
  }
  return provider;
}

/**
 * A workspace's own provider keys (the spec's decisions on usage governance, workspace provider
 * keys), owned by the invocation service; the workspace is the API key's. No answer holds a
 * key: only its provider, its last 4 characters and its dates. Documented although private.
 */
@ApiTags('provider_credentials')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/provider_credentials')
@PrivateApiRoute()
export class ProviderCredentialsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's stored credentials, by provider. */
  @Get()
  @ApiOkResponse({ type: ProviderCredentialListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ provider_credentials: ProviderCredentialView[] }> {
    return {
      provider_credentials: await send(this.rpc, ProviderCredentialPatterns.listProviderCredentials, {
        workspace_id: request.auth.workspace_id,
      }),
    };
  }

  /** Stores the key for its provider (replacing the one stored), once one list-models call with it succeeded. */
  @Post()
  @HttpCode(201)
  @ApiBody({ type: ProviderCredentialInputDoc })
  @ApiCreatedResponse({ type: ProviderCredentialDto })
  @ApiResponse({ status: 400, description: 'A body that is not JSON (validation_error)', type: ErrorBodyDto })
  @ApiResponse({
    status: 422,
    description:
      'Invalid body, an unknown or keyless provider, or a base URL the policy refuses (validation_error); the provider refused the key (personal_model_invalid_credentials)',
    type: ErrorBodyDto,
  })
  @ApiResponse({
    status: 502,
    description: 'The provider could not be reached, did not answer in time or failed the test call (provider_error); nothing is stored',
    type: ErrorBodyDto,
  })
  async save(@Body() body: ProviderCredentialInput, @Req() request: AuthenticatedRequest): Promise<ProviderCredentialView> {
    const saved = await send(this.rpc, ProviderCredentialPatterns.saveProviderCredential, {
      workspace_id: request.auth.workspace_id,
      credential: body,
    });
    return saved.credential;
  }

  @Delete(':provider')
  @HttpCode(204)
  @ApiParam({ name: 'provider', type: String, description: 'The provider whose credential goes', example: 'openai' })
  @ApiNoContentResponse({ description: 'Deleted: runs asking for the workspace credentials of this provider answer 422 again' })
  @ApiResponse({ status: 404, description: 'No credential stored for that provider (resource_not_found)', type: ErrorBodyDto })
  async remove(@Param('provider') provider: string, @Req() request: AuthenticatedRequest): Promise<void> {
    await send(this.rpc, ProviderCredentialPatterns.deleteProviderCredential, {
      workspace_id: request.auth.workspace_id,
      provider: checkedProvider(provider),
    });
  }
}
