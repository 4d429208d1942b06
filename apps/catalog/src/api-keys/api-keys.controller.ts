import { Controller } from '@nestjs/common';
import { RpcHandler } from '@waggle/platform';
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

  @RpcHandler(CatalogPatterns.resolveApiKey)
  resolve(request: ResolveApiKeyRequest): Promise<ResolvedApiKey> {
    return this.keys.resolve(request.prefix, request.key_hash);
  }

  @RpcHandler(CatalogPatterns.createApiKey)
  create(request: WorkspaceIdRequest): Promise<CreatedApiKey> {
    return this.keys.create(request.workspace_id);
  }

  @RpcHandler(CatalogPatterns.listApiKeys)
  list(request: WorkspaceIdRequest): Promise<ApiKeySummary[]> {
    return this.keys.list(request.workspace_id);
  }

  @RpcHandler(CatalogPatterns.revokeApiKey)
  revoke(request: RevokeApiKeyRequest): Promise<ApiKeySummary> {
    return this.keys.revoke(request.key);
  }
}
