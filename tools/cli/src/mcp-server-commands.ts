import { AgentPatterns, type AppliedMcpServer, type McpServerTestResult, type McpServerView } from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { CliFailure, EXIT } from './exit-codes';
import { readYamlFile } from './input-file';
import { print } from './output';

/** `--header 'Name: value'`, repeatable: collected into one object (the last of a name wins). */
function collectHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  if (colon <= 0) throw new InvalidArgumentError(`expected "Name: value": ${value.split(':')[0]}`);
  return { ...previous, [value.slice(0, colon).trim()]: value.slice(colon + 1).trim() };
}

function wholeMilliseconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number of milliseconds: ${value}`);
  return parsed;
}

interface DefinitionOptions {
  file?: string;
  id?: string;
  name?: string;
  url?: string;
  header?: Record<string, string>;
  timeoutMs?: number;
  enabled?: boolean;
}

/**
 * A server definition from `--file` (YAML or JSON: one server's fields) with the flags on top.
 * Only what was given is sent: an update keeps the rest (headers included).
 */
async function definitionOf(options: DefinitionOptions): Promise<Record<string, unknown>> {
  let base: Record<string, unknown> = {};
  if (options.file) {
    const parsed = await readYamlFile<unknown>(options.file);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new CliFailure(
        EXIT.usage,
        `error: ${options.file} must hold one MCP server's fields (id, name, url, headers, timeout_ms, enabled)`,
      );
    base = parsed as Record<string, unknown>;
  }
  return {
    ...base,
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.header === undefined ? {} : { headers: { ...(base.headers as Record<string, string> | undefined), ...options.header } }),
    ...(options.timeoutMs === undefined ? {} : { timeout_ms: options.timeoutMs }),
    ...(options.enabled === undefined ? {} : { enabled: options.enabled }),
  };
}

/** One table row of a server: its header names only (values are never read back). */
export function mcpServerRow(server: McpServerView): Record<string, unknown> {
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    enabled: server.enabled ? 'yes' : 'no',
    timeout_ms: server.timeout_ms,
    headers: Object.keys(server.headers).join(',') || '-',
    tools: server.tools.length,
    tools_approved_at: server.tools_approved_at,
  };
}

/** One row per tool a test listed (changed or approved) and per approved tool it no longer lists. */
function testRows(result: McpServerTestResult): Array<Record<string, unknown>> {
  const changed = new Set(result.changed);
  return [
    ...result.tools.map((tool) => ({
      tool: tool.name,
      state: changed.has(tool.name) ? 'changed' : 'approved',
      protocol_version: result.protocol_version,
    })),
    ...result.removed.map((name) => ({ tool: name, state: 'removed', protocol_version: result.protocol_version })),
  ];
}

/** The table rows of an apply's `mcp_servers:`. */
export function appliedMcpServerRows(applied: AppliedMcpServer[]): Array<Record<string, unknown>> {
  return applied.map((server) => ({ mcp_server: server.id, action: server.action }));
}

/** Applies a definition file's `mcp_servers:` list (before its prompts and workflows, which may use them). */
export function applyMcpServers(call: Caller, workspaceId: string, servers: unknown): Promise<AppliedMcpServer[]> {
  if (!Array.isArray(servers)) throw new CliFailure(EXIT.usage, 'error: mcp_servers must be a list of MCP servers');
  return call(AgentPatterns.applyMcpServers, { workspace_id: workspaceId, mcp_servers: servers as never });
}

/**
 * `mcp-server list|show|create|update|delete|test|approve`: a workspace's MCP servers (the spec's
 * decisions, MCP), as /v1/private/mcp_servers manages them. A definition comes from `--file`
 * (YAML or JSON) and the flags, headers as `--header 'Name: value'` (repeatable).
 */
export function addMcpServerCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const definitionOptions = (command: Command) =>
    command
      .option('-f, --file <path>', "YAML or JSON file with the server's fields (flags given too take precedence)")
      .option('--name <name>', 'the name shown')
      .option('--url <url>', 'the Streamable HTTP endpoint (https; http only for hosts MCP_URL_ALLOWLIST lists)')
      .option('--header <header>', 'a header sent with every request, as "Name: value" (repeatable)', collectHeader)
      .option('--timeout-ms <ms>', "a tool call's time-out (1000 to 300000)", wholeMilliseconds)
      .addOption(new Option('--enabled', 'connect to it (tested on every write)').conflicts('disabled'))
      .addOption(new Option('--disabled', 'keep it without connecting to it'));
  const enabledOf = (options: { enabled?: boolean; disabled?: boolean }) => (options.enabled ? true : options.disabled ? false : undefined);

  const server = program.command('mcp-server').description("a workspace's MCP servers, whose tools agents and workflows may call");
  server
    .command('list <workspace-id>')
    .description("a workspace's MCP servers, by id")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const servers = await call(AgentPatterns.listMcpServers, { workspace_id: workspaceId });
      print(servers, Boolean(options.json), servers.map(mcpServerRow));
    });
  server
    .command('show <workspace-id> <server-id>')
    .description('one MCP server and its approved tools (--json prints their schemas)')
    .addOption(json())
    .action(async (workspaceId: string, serverId: string, options: { json?: boolean }) => {
      const view = await call(AgentPatterns.getMcpServer, { workspace_id: workspaceId, server_id: serverId });
      print(view, Boolean(options.json), [mcpServerRow(view)]);
    });
  definitionOptions(
    server
      .command('create <workspace-id>')
      .description('register an MCP server; an enabled one is tested first and the tools it lists are approved')
      .option('--id <id>', 'its id (^[a-z0-9_-]{1,24}$, fixed once created)'),
  )
    .addOption(json())
    .action(async (workspaceId: string, options: DefinitionOptions & { disabled?: boolean; json?: boolean }) => {
      const definition = await definitionOf({ ...options, enabled: enabledOf(options) });
      const view = await call(AgentPatterns.createMcpServer, { workspace_id: workspaceId, mcp_server: definition as never });
      print(view, Boolean(options.json), [mcpServerRow(view)]);
    });
  definitionOptions(
    server
      .command('update <workspace-id> <server-id>')
      .description(
        'change an MCP server (what is not given is kept, headers included); an enabled one is tested and its tools approved again',
      ),
  )
    .addOption(json())
    .action(async (workspaceId: string, serverId: string, options: DefinitionOptions & { disabled?: boolean; json?: boolean }) => {
      const changes = await definitionOf({ ...options, enabled: enabledOf(options) });
      const view = await call(AgentPatterns.updateMcpServer, {
        workspace_id: workspaceId,
        server_id: serverId,
        mcp_server: changes as never,
      });
      print(view, Boolean(options.json), [mcpServerRow(view)]);
    });
  server
    .command('delete <workspace-id> <server-id>')
    .description('remove an MCP server (asks first)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, serverId: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete MCP server ${serverId}`, options.yes);
      const deleted = await call(AgentPatterns.deleteMcpServer, { workspace_id: workspaceId, server_id: serverId });
      print(deleted, Boolean(options.json), [{ deleted: deleted.id }]);
    });
  definitionOptions(
    server
      .command('test <workspace-id> [server-id]')
      .description(
        'the connection test of a saved server, or of a definition not saved (--file and flags, --id included): its tools now, and which differ from the approved ones',
      )
      .option('--id <id>', 'the id of a definition not saved'),
  )
    .addOption(json())
    .action(
      async (workspaceId: string, serverId: string | undefined, options: DefinitionOptions & { disabled?: boolean; json?: boolean }) => {
        const result =
          serverId === undefined
            ? await call(AgentPatterns.testMcpDefinition, {
                workspace_id: workspaceId,
                mcp_server: (await definitionOf({ ...options, enabled: enabledOf(options) })) as never,
              })
            : await call(AgentPatterns.testMcpServer, { workspace_id: workspaceId, server_id: serverId });
        print(result, Boolean(options.json), testRows(result));
      },
    );
  server
    .command('approve <workspace-id> <server-id>')
    .description("list the server's tools now and approve them: changed tools are offered again")
    .addOption(json())
    .action(async (workspaceId: string, serverId: string, options: { json?: boolean }) => {
      const view = await call(AgentPatterns.approveMcpServer, { workspace_id: workspaceId, server_id: serverId });
      print(view, Boolean(options.json), [mcpServerRow(view)]);
    });
}
