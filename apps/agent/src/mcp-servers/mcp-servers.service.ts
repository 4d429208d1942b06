import { Injectable, Logger } from '@nestjs/common';
import {
  MAX_MCP_SERVERS_PER_WORKSPACE,
  MCP_MASKED_HEADER_VALUE,
  MCP_SERVER_TIMEOUT_MS,
  type AppliedMcpServer,
  type DeletedMcpServer,
  type McpServerChanges,
  type McpServerDefinition,
  type McpServerTestResult,
  type McpServerView,
} from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import {
  compareToolSnapshots,
  McpConnectionError,
  McpConnector,
  toolSnapshotHash,
  type McpServerConnection,
  type McpToolSnapshot,
} from '@waggle/mcp';
import { SecretSealer } from '@waggle/webhooks';
import type { McpServerEntity } from './entities/mcp-server.entity';
import { toMcpServerView, toMcpToolView } from './mcp-server-view';
import { McpServersRepository } from './mcp-servers.repository';

export function mcpServerNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'mcp_server_not_found' });
}

/** 422 validation_error naming `field`, its message in the reader's language. */
function invalid(field: string, problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { ...problem, details: [{ field, messages: [errorMessage(problem, 'en')] }] });
}

/** 422 mcp_connection_failed: the stage in `details`, with the status or protocol error where known. */
export function connectionFailed(error: McpConnectionError): WaggleException {
  return new WaggleException('mcp_connection_failed', {
    detail: 'mcp_connection_stage',
    params: { stage: error.stage, reason: error.message },
    details: {
      stage: error.stage,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.protocolError === undefined ? {} : { protocol_error: error.protocolError }),
      reason: error.message,
    },
  });
}

/** A server's settings once a write's defaults and stored values are applied. */
interface ServerSettings {
  name: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  enabled: boolean;
}

/** The approved snapshot a write stores: the tools listed now, or (not tested) what was there. */
interface Approval {
  tools: McpToolSnapshot[];
  hash: string | null;
  at: Date | null;
}

/**
 * A workspace's MCP servers (the spec's decisions, MCP): create, read, update, delete, the
 * connection test (saved or not) and approval of the tool list. A write of an enabled server
 * runs the connection test first and stores the tools it lists as the approved snapshot; a
 * failed test saves nothing. Header values are sealed at rest and only ever read back masked.
 */
@Injectable()
export class McpServersService {
  private readonly logger = new Logger(McpServersService.name);

  constructor(
    private readonly servers: McpServersRepository,
    private readonly sealer: SecretSealer,
    private readonly connector: McpConnector,
  ) {}

  async list(workspaceId: string): Promise<McpServerView[]> {
    return (await this.servers.list(workspaceId)).map((server) => this.view(server));
  }

  async get(workspaceId: string, id: string): Promise<McpServerView> {
    return this.view(await this.getEntity(workspaceId, id));
  }

  async create(workspaceId: string, definition: McpServerDefinition): Promise<McpServerView> {
    const created = await this.createUnlessExists(workspaceId, definition);
    if (!created) throw this.exists(definition.id);
    return this.view(created);
  }

  /** Creates the server, or answers null when the workspace has one of that id (read again under the workspace's lock). */
  private async createUnlessExists(workspaceId: string, definition: McpServerDefinition): Promise<McpServerEntity | null> {
    const settings = this.settingsOf(definition, null);
    if (await this.servers.find(workspaceId, definition.id)) return null;
    if ((await this.servers.count(workspaceId)) >= MAX_MCP_SERVERS_PER_WORKSPACE) throw this.limitReached();
    const approval = settings.enabled ? await this.approvalOf(definition.id, settings) : { tools: [], hash: null, at: null };
    const created = await this.servers.transaction(async () => {
      await this.servers.lockWorkspace(workspaceId);
      if (await this.servers.find(workspaceId, definition.id)) return null;
      if ((await this.servers.count(workspaceId)) >= MAX_MCP_SERVERS_PER_WORKSPACE) throw this.limitReached();
      return this.servers.insert({
        workspaceId,
        id: definition.id,
        name: settings.name,
        url: settings.url,
        headersSealed: this.seal(settings.headers),
        timeoutMs: settings.timeoutMs,
        enabled: settings.enabled,
        approvedTools: approval.tools,
        approvedHash: approval.hash,
        approvedAt: approval.at,
      });
    });
    if (created) this.logger.log({ msg: 'mcp server created', mcp_server_id: created.id, tools: created.approvedTools.length });
    return created;
  }

  /** Absent fields keep their values; an enabled server is tested, and what it lists becomes the approved snapshot. */
  async update(workspaceId: string, id: string, changes: McpServerChanges): Promise<McpServerView> {
    const stored = await this.getEntity(workspaceId, id);
    if (changes.id !== undefined && changes.id !== id) throw invalid('id', { detail: 'mcp_server_id_fixed' });
    const settings = this.settingsOf(changes, stored);
    const approval = settings.enabled ? await this.approvalOf(id, settings) : null;
    const updated = await this.servers.transaction(async () => {
      const current = await this.servers.find(workspaceId, id, { lock: true });
      if (!current) throw mcpServerNotFound();
      return this.servers.save(this.applySettings(current, settings, approval));
    });
    this.logger.log({ msg: 'mcp server updated', mcp_server_id: id, tested: approval !== null });
    return this.view(updated);
  }

  async delete(workspaceId: string, id: string): Promise<DeletedMcpServer> {
    if (!(await this.servers.remove(workspaceId, id))) throw mcpServerNotFound();
    this.logger.log({ msg: 'mcp server deleted', mcp_server_id: id });
    return { id };
  }

  /** The connection test of a saved server: its tools now, against the approved snapshot. */
  async test(workspaceId: string, id: string): Promise<McpServerTestResult> {
    const stored = await this.getEntity(workspaceId, id);
    return this.testConnection(this.connectionOf(stored), stored.approvedTools);
  }

  /** The connection test of an unsaved definition, compared with the saved server of the same id when there is one. */
  async testDefinition(workspaceId: string, definition: McpServerDefinition): Promise<McpServerTestResult> {
    const stored = await this.servers.find(workspaceId, definition.id);
    const headers = this.headersOf(definition.headers, stored);
    const connection: McpServerConnection = {
      id: definition.id,
      url: definition.url,
      headers,
      timeoutMs: definition.timeout_ms ?? MCP_SERVER_TIMEOUT_MS.default,
    };
    return this.testConnection(connection, stored?.approvedTools ?? []);
  }

  /** Lists the server's tools now and stores them as the approved snapshot. */
  async approve(workspaceId: string, id: string): Promise<McpServerView> {
    const stored = await this.getEntity(workspaceId, id);
    const tools = await this.listForApproval(this.connectionOf(stored));
    const approved = await this.servers.transaction(async () => {
      const current = await this.servers.find(workspaceId, id, { lock: true });
      if (!current) throw mcpServerNotFound();
      current.approvedTools = tools;
      current.approvedHash = toolSnapshotHash(tools);
      current.approvedAt = new Date();
      return this.servers.save(current);
    });
    this.logger.log({ msg: 'mcp server tools approved', mcp_server_id: id, tools: tools.length });
    return this.view(approved);
  }

  /**
   * An apply file's servers, in order: created, updated, or left alone when the definition
   * (the opened header values included) is what is stored. A server left alone is not connected to.
   */
  async apply(workspaceId: string, definitions: McpServerDefinition[]): Promise<AppliedMcpServer[]> {
    const ids = new Set<string>();
    definitions.forEach((definition, index) => {
      if (ids.has(definition.id)) throw invalid(`mcp_servers.${index}.id`, { detail: 'mcp_server_exists', params: { id: definition.id } });
      ids.add(definition.id);
    });
    const applied: AppliedMcpServer[] = [];
    for (const definition of definitions) applied.push({ id: definition.id, action: await this.applyOne(workspaceId, definition) });
    return applied;
  }

  /**
   * One server of an apply file. A concurrent apply may create it between this one's read and
   * its write: this one then finds it under the workspace's lock and compares with it, as if it
   * had been there (the same file answers `unchanged`), rather than refusing it as a create would.
   */
  private async applyOne(workspaceId: string, definition: McpServerDefinition): Promise<AppliedMcpServer['action']> {
    let stored = await this.servers.find(workspaceId, definition.id);
    if (!stored) {
      if (await this.createUnlessExists(workspaceId, definition)) return 'created';
      stored = await this.servers.find(workspaceId, definition.id);
      // Created and deleted again meanwhile: what a concurrent delete leaves is gone, as after this apply.
      if (!stored) throw mcpServerNotFound();
    }
    if (this.unchanged(stored, definition)) return 'unchanged';
    await this.update(workspaceId, definition.id, definition);
    return 'updated';
  }

  /** How to reach the workspace's server, its headers opened, with its approved snapshot. */
  async connection(workspaceId: string, id: string): Promise<McpServerConnection & { approved: McpToolSnapshot[]; enabled: boolean }> {
    const stored = await this.getEntity(workspaceId, id);
    return { ...this.connectionOf(stored), approved: stored.approvedTools, enabled: stored.enabled };
  }

  private async getEntity(workspaceId: string, id: string): Promise<McpServerEntity> {
    const stored = await this.servers.find(workspaceId, id);
    if (!stored) throw mcpServerNotFound();
    return stored;
  }

  private async testConnection(connection: McpServerConnection, approved: McpToolSnapshot[]): Promise<McpServerTestResult> {
    let result: { tools: McpToolSnapshot[]; protocolVersion: string };
    try {
      result = await this.connector.test(connection);
    } catch (error) {
      throw this.failure(error);
    }
    const { changed, removed } = compareToolSnapshots(approved, result.tools);
    return { ok: true, protocol_version: result.protocolVersion, tools: result.tools.map(toMcpToolView), changed, removed };
  }

  private async listForApproval(connection: McpServerConnection): Promise<McpToolSnapshot[]> {
    try {
      return (await this.connector.test(connection)).tools;
    } catch (error) {
      throw this.failure(error);
    }
  }

  private async approvalOf(id: string, settings: ServerSettings): Promise<Approval> {
    const tools = await this.listForApproval({ id, url: settings.url, headers: settings.headers, timeoutMs: settings.timeoutMs });
    return { tools, hash: toolSnapshotHash(tools), at: new Date() };
  }

  private failure(error: unknown): unknown {
    return error instanceof McpConnectionError ? connectionFailed(error) : error;
  }

  /** A write's settings with defaults (create) or stored values (update) filled in, checked: the URL policy without DNS, masked headers. */
  private settingsOf(fields: McpServerDefinition | McpServerChanges, stored: McpServerEntity | null): ServerSettings {
    const url = fields.url ?? stored?.url ?? '';
    const refusal = this.connector.urlRefusal(url);
    if (refusal) throw invalid('url', { detail: 'url_refused', params: { reason: refusal } });
    return {
      name: fields.name ?? stored?.name ?? '',
      url,
      headers: fields.headers === undefined && stored ? this.openHeaders(stored) : this.headersOf(fields.headers ?? {}, stored),
      timeoutMs: fields.timeout_ms ?? stored?.timeoutMs ?? MCP_SERVER_TIMEOUT_MS.default,
      enabled: fields.enabled ?? stored?.enabled ?? true,
    };
  }

  /** The headers a write gives, a masked value standing for the stored value of the same name. */
  private headersOf(given: Record<string, string> | undefined, stored: McpServerEntity | null): Record<string, string> {
    if (given === undefined) return stored ? this.openHeaders(stored) : {};
    const storedHeaders = stored ? this.openHeaders(stored) : {};
    const storedByName = new Map(Object.entries(storedHeaders).map(([name, value]) => [name.toLowerCase(), value]));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (value === MCP_MASKED_HEADER_VALUE) {
        const kept = storedByName.get(name.toLowerCase());
        if (kept === undefined) throw invalid(`headers.${name}`, { detail: 'mcp_server_masked_header', params: { name } });
        headers[name] = kept;
      } else {
        headers[name] = value;
      }
    }
    return headers;
  }

  private applySettings(server: McpServerEntity, settings: ServerSettings, approval: Approval | null): McpServerEntity {
    server.name = settings.name;
    server.url = settings.url;
    server.headersSealed = this.seal(settings.headers);
    server.timeoutMs = settings.timeoutMs;
    server.enabled = settings.enabled;
    if (approval) {
      server.approvedTools = approval.tools;
      server.approvedHash = approval.hash;
      server.approvedAt = approval.at;
    }
    return server;
  }

  /** Whether an apply's definition is what is stored: its fields, defaults applied, and its header values opened. */
  private unchanged(stored: McpServerEntity, definition: McpServerDefinition): boolean {
    const wanted = this.settingsOf(definition, stored);
    const storedHeaders = this.openHeaders(stored);
    const sameHeaders =
      Object.keys(wanted.headers).length === Object.keys(storedHeaders).length &&
      Object.entries(wanted.headers).every(([name, value]) => Object.hasOwn(storedHeaders, name) && storedHeaders[name] === value);
    return (
      wanted.name === stored.name &&
      wanted.url === stored.url &&
      wanted.timeoutMs === stored.timeoutMs &&
      wanted.enabled === stored.enabled &&
      sameHeaders &&
      // An enabled server never approved yet gets its first test.
      (!stored.enabled || stored.approvedHash !== null)
    );
  }

  private connectionOf(stored: McpServerEntity): McpServerConnection {
    return { id: stored.id, url: stored.url, headers: this.openHeaders(stored), timeoutMs: stored.timeoutMs };
  }

  private seal(headers: Record<string, string>): string {
    return this.sealer.seal(JSON.stringify(headers));
  }

  private openHeaders(stored: McpServerEntity): Record<string, string> {
    return JSON.parse(this.sealer.open(stored.headersSealed)) as Record<string, string>;
  }

  private view(server: McpServerEntity): McpServerView {
    return toMcpServerView(server, Object.keys(this.openHeaders(server)));
  }

  private limitReached(): WaggleException {
    return invalid('id', { detail: 'mcp_server_limit', params: { max: MAX_MCP_SERVERS_PER_WORKSPACE } });
  }

  private exists(id: string): WaggleException {
    return invalid('id', { detail: 'mcp_server_exists', params: { id } });
  }
}
