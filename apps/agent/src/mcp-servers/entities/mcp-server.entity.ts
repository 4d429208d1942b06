import { TimestampColumns } from '@waggle/database';
import type { McpToolSnapshot } from '@waggle/mcp';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A workspace's MCP server (the spec's decisions, MCP, "workspace MCP servers"): where it is,
 * the headers sent to it (sealed at rest, like webhook secrets, under WEBHOOK_SECRET_KEY), and
 * the tool list last approved, which is all agents and workflows may call.
 */
@Entity({ name: 'mcp_servers' })
export class McpServerEntity extends TimestampColumns {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** `^[a-z0-9_-]{1,24}$`, fixed once created. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  url!: string;

  /** The headers as JSON (`{name: value}`), sealed (SecretSealer): never read back, never logged. */
  @Column({ name: 'headers_sealed', type: 'text' })
  headersSealed!: string;

  @Column({ name: 'timeout_ms', type: 'integer', default: 60_000 })
  timeoutMs!: number;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** The tools as the server listed them when last approved; empty until then. */
  @Column({ name: 'approved_tools', type: 'jsonb', default: () => "'[]'" })
  approvedTools!: McpToolSnapshot[];

  /** toolSnapshotHash of approved_tools; null until a snapshot is approved. */
  @Column({ name: 'approved_hash', type: 'text', nullable: true })
  approvedHash!: string | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt!: Date | null;
}
