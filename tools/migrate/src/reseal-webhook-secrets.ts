import type { SecretSealer } from '@waggle/webhooks';
import { Client } from 'pg';

export interface SealedSecretTable {
  /** `schema.table`, as the owning service's migrations created it. */
  table: string;
  columns: string[];
  /** The primary key's columns (default `id`). */
  key?: string[];
}

/**
 * Every column holding a value sealed under WEBHOOK_SECRET_KEY: the webhook owners' rows (prompt
 * and workflow deployments and budgets in invocation, agents in agent), whose Redis registry copies each
 * owner rewrites from these rows when it starts and every WEBHOOK_REGISTRY_RESYNC_SECONDS, and
 * the headers of the workspaces' MCP servers (agent), and the workspaces' own provider keys (invocation).
 */
export const SEALED_WEBHOOK_SECRET_TABLES: SealedSecretTable[] = [
  { table: 'invocation.prompt_deployments', columns: ['webhook_secret_sealed', 'previous_webhook_secret_sealed'] },
  { table: 'invocation.workflow_deployments', columns: ['webhook_secret_sealed', 'previous_webhook_secret_sealed'] },
  { table: 'invocation.budgets', columns: ['webhook_secret_sealed'] },
  { table: 'agent.agents', columns: ['webhook_secret_sealed', 'previous_webhook_secret_sealed'] },
  { table: 'agent.mcp_servers', columns: ['headers_sealed'], key: ['workspace_id', 'id'] },
  { table: 'invocation.provider_credentials', columns: ['api_key_sealed'], key: ['workspace_id', 'provider'] },
];

export interface ResealReport {
  table: string;
  rows: number;
  /** Sealed values written again under the sealing key. */
  resealed: number;
}

const quoted = (qualified: string) =>
  qualified
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');

/**
 * Seals every stored webhook secret again under the keyring's first key, so older keys can
 * then leave WEBHOOK_SECRET_KEY. One transaction per table, rows locked while they are
 * rewritten; a value no key of the ring opens stops the run (its table unchanged) naming the
 * row, never the secret. Running it twice changes nothing the second time.
 */
export async function resealWebhookSecrets(
  databaseUrl: string,
  sealer: SecretSealer,
  options: { dryRun?: boolean; tables?: SealedSecretTable[] } = {},
): Promise<ResealReport[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const reports: ResealReport[] = [];
  try {
    for (const { table, columns, key = ['id'] } of options.tables ?? SEALED_WEBHOOK_SECRET_TABLES) {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<Record<string, string | null>>(
          `SELECT ${[...key, ...columns].map((column) => `"${column}"`).join(', ')} FROM ${quoted(table)} FOR UPDATE`,
        );
        let resealed = 0;
        for (const row of rows) {
          const changes: Array<[column: string, value: string]> = [];
          for (const column of columns) {
            const sealed = row[column];
            if (sealed === null || sealed === undefined) continue;
            let again: string | null;
            try {
              again = sealer.reseal(sealed);
            } catch (error) {
              const rowName = key.map((column) => String(row[column])).join(' ');
              throw new Error(`${table} ${rowName} ${column}: ${error instanceof Error ? error.message : String(error)}`);
            }
            if (again !== null) changes.push([column, again]);
          }
          if (changes.length === 0) continue;
          resealed += changes.length;
          if (options.dryRun) continue;
          const assignments = changes.map(([column], index) => `"${column}" = $${key.length + index + 1}`).join(', ');
          const match = key.map((column, index) => `"${column}" = $${index + 1}`).join(' AND ');
          await client.query(`UPDATE ${quoted(table)} SET ${assignments} WHERE ${match}`, [
            ...key.map((column) => row[column]),
            ...changes.map(([, value]) => value),
          ]);
        }
        await client.query(options.dryRun ? 'ROLLBACK' : 'COMMIT');
        reports.push({ table, rows: rows.length, resealed });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
    return reports;
  } finally {
    await client.end();
  }
}
