import type {
  AgentPromptCacheTtl,
  AgentReasoningEffort,
  AgentToolChoice,
  CredentialSource,
  McpPublish,
  McpSelection,
  ResponseFormat,
} from '@waggle/contracts';
import { Column, DeleteDateColumn, Entity, Index } from 'typeorm';
import { WebhookOwnerColumns } from '@waggle/database';

/**
 * An agent of a workspace: its model and settings, and its webhook secret. Deleting an agent
 * sets `deleted_at` (TypeORM leaves such rows out of every find), so a deleted agent is never
 * read, listed, updated, invoked or triggered again, while runs that named it still resolve
 * their ids in the ledger.
 */
@Entity({ name: 'agents' })
@Index('IDX_agents_workspace_created', ['workspaceId', 'createdAt'])
export class AgentEntity extends WebhookOwnerColumns {
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

  /** Catalog model ids tried in order when `llm_model` is unavailable (D41; checked on every change); empty for none. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  fallbacks!: string[];

  /** The JSON Schema the agent's answers must match (D42). */
  @Column({ name: 'response_format', type: 'jsonb', nullable: true })
  responseFormat!: ResponseFormat | null;

  /** The workspace MCP servers whose tools the agent's runs offer, and which tools (the spec's decisions, MCP); null for none. */
  @Column({ type: 'jsonb', nullable: true })
  mcp!: McpSelection[] | null;
  /** Whose provider keys its runs use: the operator's (`hosted`) or the workspace's own (`workspace`). */
  @Column({ type: 'text', default: 'hosted' })
  credentials!: CredentialSource;

  /** Offered as a tool of the workspace's MCP server (the spec's decisions, MCP); null when never published. */
  @Column({ type: 'jsonb', nullable: true })
  publish!: McpPublish | null;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
