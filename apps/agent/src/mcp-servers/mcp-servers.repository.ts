import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { McpServerEntity } from './entities/mcp-server.entity';

/** What a new server row holds; its times are the database's. */
export type NewMcpServer = Omit<McpServerEntity, 'createdAt' | 'updatedAt'>;

const SQL = defineSql(__filename, {
  // Serialises the writes that add a server to a workspace, so two creates cannot both pass the cap.
  lockWorkspaceServers: sql(`SELECT pg_advisory_xact_lock(hashtextextended('agent.mcp_servers:' || $1, 0))`),
});

/** Every query of workspace MCP servers; each is scoped to its workspace. */
@Injectable()
export class McpServersRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's servers, by id. */
  list(workspaceId: string): Promise<McpServerEntity[]> {
    return this.table(McpServerEntity).find({ where: { workspaceId }, order: { id: 'ASC' } });
  }

  /** The workspace's server with this id, or null (also another workspace's). */
  find(workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<McpServerEntity | null> {
    return this.table(McpServerEntity).findOne({
      where: { workspaceId, id },
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  count(workspaceId: string): Promise<number> {
    return this.table(McpServerEntity).countBy({ workspaceId });
  }

  /** Holds the workspace's server list against other adding writers until the transaction ends (call inside `transaction`). */
  async lockWorkspace(workspaceId: string): Promise<void> {
    await this.execute(SQL.lockWorkspaceServers, [workspaceId]);
  }

  async insert(server: NewMcpServer): Promise<McpServerEntity> {
    const table = this.table(McpServerEntity);
    return table.save(table.create(server));
  }

  save(server: McpServerEntity): Promise<McpServerEntity> {
    return this.table(McpServerEntity).save(server);
  }

  /** Removes the workspace's server; false when there was none. */
  async remove(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.table(McpServerEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }
}
