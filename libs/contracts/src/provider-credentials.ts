import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { WorkspaceIdRequest } from './common.dto';
import { patternNames, rpc } from './rpc-contract';

// Workspace provider keys (the spec's decisions on usage governance): the wire shapes of the
// invocation service's store of a workspace's own provider credentials.

/** A provider key as the catalog's `providers` names them (openai, anthropic, groq, …). */
export const PROVIDER_CREDENTIAL_PROVIDER_FORMAT = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** An API key: visible ASCII, no spaces, at most 4096 characters. */
export const PROVIDER_API_KEY_FORMAT = /^[\x21-\x7e]{1,4096}$/;
/** How many of a key's last characters its hint shows. */
export const PROVIDER_KEY_HINT_LENGTH = 4;
/** A key shorter than this shows no hint (its last characters would be most of it). */
export const PROVIDER_KEY_HINT_MIN_LENGTH = 12;
/** How long saving a key waits for the provider's answer to its test call (ms). */
export const PROVIDER_KEY_TEST_TIMEOUT_MS = 10_000;

/** `POST /v1/private/provider_credentials`: stores the key (replacing one stored for the provider) once the provider accepted it. */
export class ProviderCredentialInput {
  @IsString()
  @Matches(PROVIDER_CREDENTIAL_PROVIDER_FORMAT, { message: 'provider must be a provider key of the model catalog, e.g. openai' })
  provider!: string;

  @IsString()
  @Matches(PROVIDER_API_KEY_FORMAT, { message: 'api_key must be 1 to 4096 visible ASCII characters, without spaces' })
  api_key!: string;

  /** http(s); a host that is not public only when the operator allows it (PROVIDER_URL_ALLOWLIST). */
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  base_url?: string;
}

/** A stored credential as every answer shows it: never the key, only its last characters. */
export interface ProviderCredentialView {
  provider: string;
  /** The key's last 4 characters ('' for a key shorter than 12). */
  hint: string;
  base_url: string | null;
  created_at: string;
  updated_at: string;
}

export class SaveProviderCredentialRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => ProviderCredentialInput)
  credential!: ProviderCredentialInput;
}

export class ProviderCredentialRequest extends WorkspaceIdRequest {
  @IsString()
  @MaxLength(64)
  provider!: string;
}

/**
 * What a run on the workspace's keys is called with: internal only (the agent service asks the
 * owner over the private bus), never answered to a client.
 */
export interface ResolvedProviderCredential {
  credential: { provider: string; api_key: string; base_url: string | null; updated_at: string } | null;
}

export const ProviderCredentialContracts = {
  listProviderCredentials: rpc('invocation.provider-credentials.list', WorkspaceIdRequest).returns<ProviderCredentialView[]>(),
  /** Tests the key with one provider call first, so it waits longer than an ordinary request. */
  saveProviderCredential: rpc('invocation.provider-credentials.save', SaveProviderCredentialRequest, {
    timeoutMs: PROVIDER_KEY_TEST_TIMEOUT_MS + 5_000,
  }).returns<{ credential: ProviderCredentialView; replaced: boolean }>(),
  deleteProviderCredential: rpc('invocation.provider-credentials.delete', ProviderCredentialRequest).returns<{ provider: string }>(),
  resolveProviderCredential: rpc('invocation.provider-credentials.resolve', ProviderCredentialRequest, {
    timeoutMs: 5_000,
  }).returns<ResolvedProviderCredential>(),
} as const;

export const ProviderCredentialPatterns = patternNames(ProviderCredentialContracts);
