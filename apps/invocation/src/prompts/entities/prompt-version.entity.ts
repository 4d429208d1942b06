import type { CredentialSource, ResponseFormat } from '@waggle/contracts';
import { Column, Entity, Index } from 'typeorm';
import { VersionColumns } from '../../deployments/version-columns';
import type { StoredPromptMessage, StoredPromptParams } from '../prompt-definition';

/** An immutable prompt: a variant points at one; changing a variant makes a new one. */
@Entity({ name: 'prompt_versions' })
@Index('UQ_prompt_versions_variant_version', ['variantId', 'version'], { unique: true })
export class PromptVersionEntity extends VersionColumns {
  /** A catalog model id. */
  @Column({ type: 'text' })
  model!: string;

  @Column({ type: 'jsonb' })
  messages!: StoredPromptMessage[];

  @Column({ type: 'jsonb' })
  params!: StoredPromptParams;

  /** The input variables the templates use: a webhook trigger must supply each. */
  @Column({ type: 'jsonb' })
  variables!: string[];

  /** Input variables whose values are image URLs. */
  @Column({ name: 'image_inputs', type: 'jsonb' })
  imageInputs!: string[];

  /** Catalog model ids tried in order when `model` is unavailable (D41); empty for none. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  fallbacks!: string[];

  /** The JSON Schema the answer must match (D42), beside `model` rather than in `params`. */
  @Column({ name: 'response_format', type: 'jsonb', nullable: true })
  responseFormat!: ResponseFormat | null;

  /** Whose provider keys its runs use: the operator's (`hosted`) or the workspace's own (`workspace`). */
  @Column({ type: 'text', default: 'hosted' })
  credentials!: CredentialSource;

  /** SHA-256 of the canonical definition: applying the same definition twice changes nothing. */
  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;
}
