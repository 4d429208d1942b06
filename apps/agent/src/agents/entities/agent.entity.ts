import type { AgentPromptCacheTtl, AgentReasoningEffort, AgentToolChoice } from '@waggle/contracts';
import { Column, CreateDateColumn, DeleteDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * An agent of a workspace: its model and settings, and its webhook secret. Deleting an agent
 * sets `deleted_at` (TypeORM leaves such rows out of every find), so a deleted agent is never
 * read, listed, updated, invoked or triggered again, while runs that named it still resolve
 * their ids in the ledger.
 */
@Entity({ name: 'agents' })
@Index('IDX_agents_workspace_created', ['workspaceId', 'createdAt'])
export class AgentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** A model id of the catalog whose model_type is `llm` (checked on every change). */
  @Column({ name: 'llm_model', type: 'text' })
  llmModel!: string;

  @Column({ name: 'model_type', type: 'text' })
  modelType!: string;

  @Column({ name: 'instruction_prompt', type: 'text', nullable: true })
  instructionPrompt!: string | null;

  @Column({ type: 'double precision', nullable: true })
  temperature!: number | null;

  @Column({ name: 'max_token', type: 'integer', nullable: true })
  maxToken!: number | null;

  @Column({ name: 'max_thinking_token', type: 'integer', nullable: true })
  maxThinkingToken!: number | null;

  @Column({ name: 'provider_prompt_cache_ttl', type: 'text', nullable: true })
  providerPromptCacheTtl!: AgentPromptCacheTtl | null;

  @Column({ name: 'reasoning_effort', type: 'text', nullable: true })
  reasoningEffort!: AgentReasoningEffort | null;

  @Column({ name: 'tool_choice', type: 'text', nullable: true })
  toolChoice!: AgentToolChoice | null;

  @Column({ name: 'max_tool_calls', type: 'integer', nullable: true })
  maxToolCalls!: number | null;

  /**
   * `whsec_` + base64 of 32 random bytes, sealed (see SecretSealer): authenticates the agent's
   * webhook triggers and signs their callbacks.
   */
  @Column({ name: 'webhook_secret_sealed', type: 'text' })
  webhookSecretSealed!: string;

  /** The secret a rotation replaced: still accepted, and still signing, until it expires. */
  @Column({ name: 'previous_webhook_secret_sealed', type: 'text', nullable: true })
  previousWebhookSecretSealed!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
