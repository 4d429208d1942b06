import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  PROVIDER_KEY_HINT_LENGTH,
  PROVIDER_KEY_HINT_MIN_LENGTH,
  type ProviderCredentialInput,
  type ProviderCredentialView,
  type ResolvedProviderCredential,
} from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { isKeylessProvider, providerApiOf, ProviderRegistry, workspaceBaseUrl } from '@waggle/providers';
import { CallbackUrlPolicy, SecretSealer } from '@waggle/webhooks';
import type { ProviderCredentialEntity } from './entities/provider-credential.entity';
import { PROVIDER_URL_POLICY } from './provider-credentials.tokens';
import { ProviderCredentialsRepository } from './provider-credentials.repository';
import { ProviderKeyTester } from './provider-key-tester';
import { WorkspaceCredentials } from './workspace-credentials';

/** 422 validation_error naming `field`. */
function invalid(field: string, problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { ...problem, details: [{ field, messages: [errorMessage(problem, 'en')] }] });
}

/** The key's last characters, or nothing for a key so short they would be most of it. */
export function keyHint(apiKey: string): string {
  return apiKey.length >= PROVIDER_KEY_HINT_MIN_LENGTH ? apiKey.slice(-PROVIDER_KEY_HINT_LENGTH) : '';
}

export function toProviderCredentialView(stored: ProviderCredentialEntity): ProviderCredentialView {
  return {
    provider: stored.provider,
    hint: stored.hint,
    base_url: stored.baseUrl,
    created_at: stored.createdAt.toISOString(),
    updated_at: stored.updatedAt.toISOString(),
  };
}

/**
 * A workspace's own provider keys (the spec's decisions on usage governance): saved once the
 * provider accepted them (one list-models call), sealed at rest, listed without the key, deleted;
 * and opened for the agent service's runs (resolve, internal only). No log line names a key.
 */
@Injectable()
export class ProviderCredentialsService {
  private readonly logger = new Logger(ProviderCredentialsService.name);

  constructor(
    private readonly credentials: ProviderCredentialsRepository,
    private readonly sealer: SecretSealer,
    private readonly tester: ProviderKeyTester,
    private readonly registry: ProviderRegistry,
    private readonly workspaceCredentials: WorkspaceCredentials,
    @Inject(PROVIDER_URL_POLICY) private readonly urlPolicy: CallbackUrlPolicy,
  ) {}

  async list(workspaceId: string): Promise<ProviderCredentialView[]> {
    return (await this.credentials.list(workspaceId)).map(toProviderCredentialView);
  }

  async save(workspaceId: string, input: ProviderCredentialInput): Promise<{ credential: ProviderCredentialView; replaced: boolean }> {
    const { provider } = input;
    const api = provider === 'local' ? null : providerApiOf(provider);
    if (isKeylessProvider(provider)) throw invalid('provider', { detail: 'provider_credential_keyless', params: { provider } });
    if (!api) throw invalid('provider', { detail: 'provider_credential_unknown_provider', params: { provider } });
    const baseUrl = input.base_url ?? null;
    if (baseUrl !== null) {
      const refusal = this.urlPolicy.refusal(baseUrl);
      if (refusal) throw invalid('base_url', { detail: 'url_refused', params: { reason: refusal } });
    }
    await this.tester.test({
      provider,
      providerName: provider,
      api,
      apiKey: input.api_key,
      baseUrl: workspaceBaseUrl(this.registry.settings, provider, baseUrl),
      workspaceUrl: baseUrl !== null,
    });
    const saved = await this.credentials.save({
      workspaceId,
      provider,
      apiKeySealed: this.sealer.seal(input.api_key),
      hint: keyHint(input.api_key),
      baseUrl,
    });
    this.workspaceCredentials.forget(workspaceId, provider);
    this.logger.log({ msg: 'provider credential saved', provider, replaced: saved.replaced });
    return { credential: toProviderCredentialView(saved.credential), replaced: saved.replaced };
  }

  async delete(workspaceId: string, provider: string): Promise<{ provider: string }> {
    if (!(await this.credentials.remove(workspaceId, provider))) {
      throw new WaggleException('resource_not_found', { detail: 'provider_credential_not_found', params: { provider } });
    }
    this.workspaceCredentials.forget(workspaceId, provider);
    this.logger.log({ msg: 'provider credential deleted', provider });
    return { provider };
  }

  /** The workspace's key for the provider, opened, for the agent service's runs; null when none is stored. */
  async resolve(workspaceId: string, provider: string): Promise<ResolvedProviderCredential> {
    const credential = await this.workspaceCredentials.lookup(workspaceId, provider);
    return {
      credential: credential && {
        provider: credential.provider,
        api_key: credential.apiKey,
        base_url: credential.baseUrl,
        updated_at: credential.version,
      },
    };
  }
}
