import { Controller } from '@nestjs/common';
import {
  ProviderCredentialPatterns,
  ProviderCredentialRequest,
  SaveProviderCredentialRequest,
  WorkspaceIdRequest,
  type ProviderCredentialView,
  type ResolvedProviderCredential,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { ProviderCredentialsService } from './provider-credentials.service';

@Controller()
export class ProviderCredentialsController {
  constructor(private readonly credentials: ProviderCredentialsService) {}

  @RpcHandler(ProviderCredentialPatterns.listProviderCredentials)
  list(request: WorkspaceIdRequest): Promise<ProviderCredentialView[]> {
    return this.credentials.list(request.workspace_id);
  }

  @RpcHandler(ProviderCredentialPatterns.saveProviderCredential)
  save(request: SaveProviderCredentialRequest): Promise<{ credential: ProviderCredentialView; replaced: boolean }> {
    return this.credentials.save(request.workspace_id, request.credential);
  }

  @RpcHandler(ProviderCredentialPatterns.deleteProviderCredential)
  delete(request: ProviderCredentialRequest): Promise<{ provider: string }> {
    return this.credentials.delete(request.workspace_id, request.provider);
  }

  @RpcHandler(ProviderCredentialPatterns.resolveProviderCredential)
  resolve(request: ProviderCredentialRequest): Promise<ResolvedProviderCredential> {
    return this.credentials.resolve(request.workspace_id, request.provider);
  }
}
