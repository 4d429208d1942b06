import { InvalidArgumentError, type Command } from 'commander';
import type { LimitsPatch, PlanLimitName } from '@waggle/contracts';

/**
 * A limit flag's value: a non-negative integer, or `unlimited` to lift the cap (kept as
 * the word here: commander replaces a parser's null with an empty string).
 */
export function parseLimit(value: string): number | 'unlimited' {
  if (value === 'unlimited') return value;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected a non-negative integer or "unlimited"');
  }
  return Number(value);
}

const LIMIT_FLAGS: Array<[flag: string, limit: PlanLimitName, description: string]> = [
  ['--rate-limit-per-day <n>', 'rate_limit_per_day', 'public API requests per UTC day'],
  ['--provider-tool-calls-per-day <n>', 'provider_tool_calls_per_day', 'provider tool calls per UTC day'],
  ['--workflow-concurrency <n>', 'workflow_concurrency', 'concurrent workflow runs'],
  ['--workflow-step-limit <n>', 'workflow_step_limit', 'steps one workflow run may execute'],
  ['--asset-storage-bytes <n>', 'asset_storage_bytes', 'asset storage in bytes'],
];

export function addLimitOptions(command: Command): Command {
  for (const [flag, , description] of LIMIT_FLAGS) command.option(flag, `${description} (or "unlimited")`, parseLimit);
  return command;
}

/** The limits given on the command line; flags not given are left out. */
export function limitsFromOptions(options: Record<string, unknown>): LimitsPatch {
  const patch: LimitsPatch = {};
  for (const [flag, limit] of LIMIT_FLAGS) {
    const option = flag.slice(2, flag.indexOf(' ')).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const value = options[option] as number | 'unlimited' | undefined;
    if (value !== undefined) patch[limit] = value === 'unlimited' ? null : value;
  }
  return patch;
}
