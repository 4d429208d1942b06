import { TimestampColumns } from '@waggle/database';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A workspace's own key for one provider (the spec's decisions on usage governance, workspace
 * provider keys): sealed at rest under WEBHOOK_SECRET_KEY, as webhook secrets are; only its last
 * characters are ever shown. `updated_at` is the key's version: the provider layer builds a new
 * client when it changes.
 */
@Entity({ name: 'provider_credentials' })
export class ProviderCredentialEntity extends TimestampColumns {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** A provider key of the model catalog (openai, anthropic, groq, …). */
  @PrimaryColumn({ type: 'text' })
  provider!: string;

  /** The API key, sealed (SecretSealer): never read back, never logged. */
  @Column({ name: 'api_key_sealed', type: 'text' })
  apiKeySealed!: string;

  /** The key's last 4 characters ('' for a short key). */
  @Column({ type: 'text' })
  hint!: string;

  /** Where the provider is called with this key; null: the operator's (or the SDK's) base URL. */
  @Column({ name: 'base_url', type: 'text', nullable: true })
  baseUrl!: string | null;
}
