import { InvocationPatterns, ReleasePatterns, type ApplyPromptsRequest, type ReleaseHistoryEntry } from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { print } from './output';

function versionNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError(`not a version number: ${value}`);
  return Number(value);
}

function ratio(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new InvalidArgumentError(`not a number: ${value}`);
  return number;
}

/** `apply --stage`: every variant of the file staged (a changed one is recorded without being served). */
export function staged(prompts: ApplyPromptsRequest['prompts']): ApplyPromptsRequest['prompts'] {
  return prompts.map((prompt) => ({ ...prompt, variants: prompt.variants.map((variant) => ({ ...variant, stage: true })) }));
}

const historyRow = (entry: ReleaseHistoryEntry) => ({
  at: entry.at,
  pointer: entry.pointer,
  from: entry.from,
  to: entry.to,
  actor: entry.actor,
  reason: entry.reason,
  experiment_run_id: entry.experiment_run_id,
  override: entry.override ? 'yes' : 'no',
});

/**
 * A prompt variant's releases for the operator (the spec's decisions: labels and pointers, release
 * gate), as the private routes manage them: versions with their pointers, labels, promotion,
 * rollback, history and protection. Moves made here are recorded with the actor `operator`.
 */
export function addReleaseCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const release = program.command('release').description("a prompt variant's versions, labels, promotions, rollbacks and protection");
  const scope = (workspace: string, deployment: string, variant: string) => ({ workspace_id: workspace, deployment, variant });

  release
    .command('versions <workspace-id> <deployment> <variant>')
    .description('every version, newest first, with the pointers at it (deployed, labels, latest)')
    .addOption(json())
    .action(async (workspace: string, deployment: string, variant: string, options: { json?: boolean }) => {
      const versions = await call(InvocationPatterns.listPromptVersions, scope(workspace, deployment, variant));
      print(
        versions,
        Boolean(options.json),
        versions.map((version) => ({
          version: version.version,
          version_id: version.version_id,
          model: version.model,
          created_at: version.created_at,
          pointers: [...(version.current ? ['deployed'] : []), ...version.labels].join(','),
        })),
      );
    });

  release
    .command('promote <workspace-id> <deployment> <variant> <version>')
    .description('move the deployed version (or --label) to a version; a protected variant needs a passing experiment run or --override')
    .option('--label <label>', 'move this label instead of the deployed version')
    .option('--reason <text>', 'why (kept in the history; required with --override)')
    .option('--override', 'bypass the release gate')
    .addOption(json())
    .action(
      async (
        workspace: string,
        deployment: string,
        variant: string,
        version: string,
        options: { label?: string; reason?: string; override?: boolean; json?: boolean },
      ) => {
        const entry = await call(ReleasePatterns.promote, {
          ...scope(workspace, deployment, variant),
          version: versionNumber(version),
          label: options.label,
          reason: options.reason,
          override: options.override,
        });
        print(entry, Boolean(options.json), [historyRow(entry)]);
      },
    );

  release
    .command('rollback <workspace-id> <deployment> <variant>')
    .description('move the deployed version (or --label) back to its previous target in the history')
    .option('--label <label>', 'roll back this label instead of the deployed version')
    .option('--reason <text>', 'why (kept in the history)')
    .addOption(json())
    .action(
      async (workspace: string, deployment: string, variant: string, options: { label?: string; reason?: string; json?: boolean }) => {
        const entry = await call(ReleasePatterns.rollback, {
          ...scope(workspace, deployment, variant),
          label: options.label,
          reason: options.reason,
        });
        print(entry, Boolean(options.json), [historyRow(entry)]);
      },
    );

  release
    .command('history <workspace-id> <deployment> <variant>')
    .description("every move of the variant's pointers, newest first")
    .addOption(json())
    .action(async (workspace: string, deployment: string, variant: string, options: { json?: boolean }) => {
      const history = await call(ReleasePatterns.history, scope(workspace, deployment, variant));
      print(history, Boolean(options.json), history.map(historyRow));
    });

  const label = release.command('label').description("a variant's named pointers");
  label
    .command('set <workspace-id> <deployment> <variant> <label> <version>')
    .description('point a label at a version (`latest` and `deployed` are reserved)')
    .addOption(json())
    .action(async (workspace: string, deployment: string, variant: string, name: string, version: string, options: { json?: boolean }) => {
      const entry = await call(ReleasePatterns.setLabel, {
        ...scope(workspace, deployment, variant),
        label: name,
        version: versionNumber(version),
      });
      print(entry, Boolean(options.json), [historyRow(entry)]);
    });
  label
    .command('delete <workspace-id> <deployment> <variant> <label>')
    .description('remove a label')
    .addOption(json())
    .action(async (workspace: string, deployment: string, variant: string, name: string, options: { json?: boolean }) => {
      const entry = await call(ReleasePatterns.deleteLabel, { ...scope(workspace, deployment, variant), label: name });
      print(entry, Boolean(options.json), [historyRow(entry)]);
    });

  release
    .command('protect <workspace-id> <deployment> <variant>')
    .description("turn the release gate on (or off with --off) for the deployed version; a protected variant's applies are staged")
    .option('--off', 'unprotect')
    .option('--min-pass-rate <rate>', 'the pass rate a gating run must reach, 0 to 1 (default 1)', ratio)
    .option('--max-age-days <days>', 'how old a gating run may be, 1 to 365 (default 7)', versionNumber)
    .addOption(json())
    .action(
      async (
        workspace: string,
        deployment: string,
        variant: string,
        options: { off?: boolean; minPassRate?: number; maxAgeDays?: number; json?: boolean },
      ) => {
        const protection = await call(ReleasePatterns.setProtection, {
          ...scope(workspace, deployment, variant),
          protected: !options.off,
          min_pass_rate: options.minPassRate,
          max_age_days: options.maxAgeDays,
        });
        print(protection, Boolean(options.json), [{ ...protection }]);
      },
    );
}
