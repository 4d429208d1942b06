import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROVIDER_CREDENTIAL_PROVIDER_FORMAT, type ProviderCredentialView } from '@waggle/contracts';

// What the OpenAPI document says about the provider credential bodies and answers. The body is
// validated with the contract's class (ProviderCredentialInput); these describe it.

/** `POST /v1/private/provider_credentials`. */
export class ProviderCredentialInputDoc {
  @ApiProperty({
    pattern: PROVIDER_CREDENTIAL_PROVIDER_FORMAT.source,
    description:
      'A provider key of the model catalog (openai, anthropic, google, mistral, groq, …); not `local` or `ollama`, which take no key',
    example: 'openai',
  })
  provider!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 4096,
    writeOnly: true,
    description: 'The API key: tested with one list-models call to the provider before it is stored, sealed at rest, never returned',
    example: 'sk-…',
  })
  api_key!: string;

  @ApiPropertyOptional({
    maxLength: 2048,
    description:
      "Where the provider is called with this key (an OpenAI-compatible proxy): https, or http for a host the operator allows (PROVIDER_URL_ALLOWLIST). Unset: the operator's base URL for the provider, else its public one",
    example: 'https://llm-proxy.example.com/v1',
  })
  base_url?: string;
}

export class ProviderCredentialDto implements ProviderCredentialView {
  @ApiProperty({ example: 'openai' })
  provider!: string;

  @ApiProperty({ description: "The key's last 4 characters (empty for a key shorter than 12)", example: 'x9Qa' })
  hint!: string;

  @ApiProperty({ type: 'string', nullable: true })
  base_url!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', description: 'When the key was last replaced' })
  updated_at!: string;
}

export class ProviderCredentialListDto {
  @ApiProperty({ type: [ProviderCredentialDto], description: 'By provider' })
  provider_credentials!: ProviderCredentialDto[];
}
