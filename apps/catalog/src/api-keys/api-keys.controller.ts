import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CatalogPatterns,
  ResolveApiKeyRequest,
  RevokeApiKeyRequest,
  WorkspaceIdRequest,
  type ApiKeySummary,
  type CreatedApiKey,
  type ResolvedApiKey,
} from '@waggle/contracts';
import { ApiKeysService } from './api-keys.service';

@Controller()
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @MessagePattern(CatalogPatterns.resolveApiKey)
  resolve(@Payload() request: ResolveApiKeyRequest): Promise<ResolvedApiKey> {
    return this.keys.resolve(request.prefix, request.key_hash);
  }

  @MessagePattern(CatalogPatterns.createApiKey)
  create(@Payload() request: WorkspaceIdRequest): Promise<CreatedApiKey> {
    return this.keys.create(request.workspace_id);
  }

  @MessagePattern(CatalogPatterns.listApiKeys)
  list(@Payload() request: WorkspaceIdRequest): Promise<ApiKeySummary[]> {
    return this.keys.list(request.workspace_id);
  }

  @MessagePattern(CatalogPatterns.revokeApiKey)
  revoke(@Payload() request: RevokeApiKeyRequest): Promise<ApiKeySummary> {
    return this.keys.revoke(request.key);
  }
}
