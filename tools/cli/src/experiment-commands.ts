import {
  DatasetPatterns,
  ExperimentPatterns,
  InvocationPatterns,
  TERMINAL_RUN_STATUSES,
  type ExperimentCandidateSummary,
  type ExperimentCellView,
  type ExperimentRunDefinition,
  type ExperimentRunView,
} from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { setTimeout as delay } from 'node:timers/promises';
import type { Caller } from './cli';
import { CliFailure, EXIT } from './exit-codes';
import { readYamlFile } from './input-file';
import { print } from './output';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How often `--wait` reads the run while it goes on. */
const WAIT_POLL_MS = 1_000;

function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return parsed;
}

const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(6)}`;
const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const signed = (value: number, format: (value: number) => string) => `${value >= 0 ? '+' : '-'}${format(Math.abs(value))}`;

const runRow = (run: ExperimentRunView) => ({
  id: run.id,
  name: run.name,
  status: run.status,
  cells: run.counts.cells,
  pending: run.counts.pending,
  errored: run.counts.errored,
  created_at: run.created_at,
});

/** One line of the per-candidate table `--wait` and `show` print. */
export function summaryRow(summary: ExperimentCandidateSummary): Record<string, string> {
  const versus = summary.vs_baseline;
  return {
    candidate: summary.candidate,
    pass_rate: percent(summary.pass_rate),
    passed: `${summary.passed}/${summary.rows}`,
    errors: String(summary.errors),
    'p50/p95_ms': `${summary.latency_ms.p50 ?? '-'}/${summary.latency_ms.p95 ?? '-'}`,
    cost: usd(summary.cost_micros),
    vs_baseline: versus ? `${signed(versus.pass_rate_delta, percent)} pass, ${versus.regressed_rows.length} regressed` : '-',
    threshold: summary.met_threshold ? 'met' : 'missed',
  };
}

const cellRow = (cell: ExperimentCellView) => ({
  row_id: cell.row_id,
  candidate: cell.candidate,
  status: cell.status,
  passed: cell.passed,
  latency_ms: cell.latency_ms,
  output: typeof cell.output === 'string' ? cell.output.slice(0, 60) : JSON.stringify(cell.output)?.slice(0, 60),
  error: cell.error?.code ?? null,
});

/** Why a finished run fails a CI gate: it did not complete, or an active candidate missed the run's pass rate; null when it passes. */
export function gateFailure(run: ExperimentRunView): string | null {
  if (run.status !== 'completed') return `the run ended ${run.status}${run.error ? ` (${run.error.code}: ${run.error.message})` : ''}`;
  const missed = run.summary.filter((summary) => !summary.met_threshold).map((summary) => summary.candidate);
  return missed.length === 0 ? null : `below min_pass_rate ${run.min_pass_rate}: ${missed.join(', ')}`;
}

/**
 * `experiment run|list|show|cells|cancel`: a workspace's experiment runs (the spec's decisions
 * on experiments and releases: experiment runs, results), as /v1/private/experiment_runs
 * manages them. `run -f experiment.yaml --wait` is a CI gate: it follows the run to its end,
 * prints each candidate's results and exits EXIT.experimentMissed when the run did not complete
 * or a candidate missed its pass rate.
 */
export function addExperimentCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const workspace = () => new Option('--workspace <id>', 'the workspace').makeOptionMandatory();
  const experiment = program.command('experiment').description("a workspace's experiment runs: prompt candidates over a dataset version");

  /** A dataset named by id, or by name among the workspace's. */
  const datasetId = async (workspaceId: string, named: unknown): Promise<unknown> => {
    if (typeof named !== 'string' || UUID.test(named)) return named;
    const datasets = await call(DatasetPatterns.listDatasets, { workspace_id: workspaceId });
    const found = datasets.find((dataset) => dataset.name === named);
    if (!found) throw new CliFailure(EXIT.refused, `error: the workspace has no dataset named ${named}`);
    return found.id;
  };

  const follow = async (workspaceId: string, runId: string): Promise<ExperimentRunView> => {
    let last = '';
    for (;;) {
      const run = await call(ExperimentPatterns.getRun, { workspace_id: workspaceId, run_id: runId });
      const progress = `${run.status}: ${run.counts.cells - run.counts.pending}/${run.counts.cells} cells`;
      if (progress !== last) process.stderr.write(`${progress}\n`);
      last = progress;
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
      await delay(WAIT_POLL_MS);
    }
  };

  experiment
    .command('run')
    .description('start a run from a file (the create body in YAML; `dataset` may be a name)')
    .requiredOption('-f, --file <path>', 'the run: name, dataset, dataset_version, candidates, evaluators, baseline, min_pass_rate')
    .addOption(workspace())
    .option('--wait', 'follow the run to its end, print each candidate, exit 65 when it did not complete or missed min_pass_rate')
    .addOption(json())
    .action(async (options: { file: string; workspace: string; wait?: boolean; json?: boolean }) => {
      const document = await readYamlFile<Record<string, unknown>>(options.file);
      if (document === null || typeof document !== 'object' || Array.isArray(document))
        throw new CliFailure(EXIT.usage, `error: ${options.file} must hold the run as a mapping`);
      const body = { ...document, dataset: await datasetId(options.workspace, document.dataset) } as unknown as ExperimentRunDefinition;
      const started = await call(ExperimentPatterns.createRun, { workspace_id: options.workspace, run: body });
      if (!options.wait) {
        print(started, Boolean(options.json), [runRow(started)]);
        return;
      }
      process.stderr.write(`experiment run ${started.id}\n`);
      const run = await follow(options.workspace, started.id);
      print(run, Boolean(options.json), run.summary.map(summaryRow));
      const failure = gateFailure(run);
      if (failure) throw new CliFailure(EXIT.experimentMissed, `error: ${failure}`);
    });
  experiment
    .command('list')
    .description("the workspace's runs, newest first")
    .addOption(workspace())
    .option('--limit <n>', 'at most this many (1 to 1000, default 100)', wholeNumber)
    .addOption(json())
    .action(async (options: { workspace: string; limit?: number; json?: boolean }) => {
      const runs = await call(ExperimentPatterns.listRuns, { workspace_id: options.workspace, limit: options.limit });
      print(runs, Boolean(options.json), runs.map(runRow));
    });
  experiment
    .command('show <run-id>')
    .description('one run: its status and each candidate')
    .addOption(workspace())
    .addOption(json())
    .action(async (runId: string, options: { workspace: string; json?: boolean }) => {
      const run = await call(ExperimentPatterns.getRun, { workspace_id: options.workspace, run_id: runId });
      print(run, Boolean(options.json), [runRow(run)]);
      if (!options.json) print(run.summary, false, run.summary.map(summaryRow));
    });
  experiment
    .command('cells <run-id>')
    .description("a page of the run's cells, in row then candidate order")
    .addOption(workspace())
    .option('--limit <n>', 'cells per page (1 to 1000, default 100)', wholeNumber)
    .option('--offset <n>', 'cells to skip', wholeNumber)
    .option('--candidate <name>', "only this candidate's cells")
    .addOption(new Option('--status <status>', 'only cells in this status').choices(['pending', 'succeeded', 'errored']))
    .addOption(json())
    .action(
      async (
        runId: string,
        options: {
          workspace: string;
          limit?: number;
          offset?: number;
          candidate?: string;
          status?: 'pending' | 'succeeded' | 'errored';
          json?: boolean;
        },
      ) => {
        const page = await call(ExperimentPatterns.listCells, {
          workspace_id: options.workspace,
          run_id: runId,
          limit: options.limit,
          offset: options.offset,
          candidate: options.candidate,
          status: options.status,
        });
        print(page, Boolean(options.json), page.cells.map(cellRow));
        if (!options.json && page.next_offset !== null) process.stdout.write(`(${page.total} cells; next: --offset ${page.next_offset})\n`);
      },
    );
  experiment
    .command('cancel <run-id>')
    .description('cancel a run: pending cells end run_cancelled, running ones are stopped')
    .addOption(workspace())
    .addOption(json())
    .action(async (runId: string, options: { workspace: string; json?: boolean }) => {
      const cancelled = await call(InvocationPatterns.cancelRequest, { workspace_id: options.workspace, request_id: runId });
      print(cancelled, Boolean(options.json), [{ ...cancelled }]);
    });
}
