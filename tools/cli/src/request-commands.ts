import { InvocationPatterns, type CancelledRun, type RequestRecordView, type RunEventView } from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller, Collector } from './cli';
import { print } from './output';

const requestRow = (run: RequestRecordView) => ({
  request_id: run.request_id,
  type: run.request_type,
  status: run.status,
  generated_at: run.generated_at,
  started_at: run.started_at,
  ended_at: run.ended_at,
  cost_micros: run.cost_micros,
  price_version: run.price_version,
});

function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return parsed;
}

/**
 * `request show|cancel|events`: one run of the request ledger, its cancellation and its kept
 * events (a background or idempotent stream's), as the public `/v1/public/requests/{id}` routes
 * answer them, for an operator who has the workspace id rather than its API key.
 */
export function addRequestCommands(program: Command, call: Caller, collect: Collector): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const request = program.command('request').description('runs in the request ledger: look one up, cancel it, read its kept events');
  request
    .command('show <workspace-id> <request-id>')
    .description("a run's ledger record: status, times, what was asked and its answer or error")
    .addOption(json())
    .action(async (workspaceId: string, requestId: string, options: { json?: boolean }) => {
      const run = await call(InvocationPatterns.getRequest, { workspace_id: workspaceId, request_id: requestId });
      print(run, Boolean(options.json), [requestRow(run)]);
      if (!options.json && run.data) print(run.data, false);
    });
  request
    .command('cancel <workspace-id> <request-id>')
    .description('cancel a run: a queued one never starts, a running one stops (a run already ended is left as it is)')
    .addOption(json())
    .action(async (workspaceId: string, requestId: string, options: { json?: boolean }) => {
      const cancelled: CancelledRun = await call(InvocationPatterns.cancelRequest, { workspace_id: workspaceId, request_id: requestId });
      print(cancelled, Boolean(options.json), [{ ...cancelled }]);
    });
  request
    .command('events <workspace-id> <request-id>')
    .description("a background or idempotent stream's kept events, then the run live to its end (as SSE lines; --json: one event a line)")
    .option('--after <seq>', 'only the events after this sequence number (an SSE Last-Event-ID)', wholeNumber)
    .addOption(json())
    .action(async (workspaceId: string, requestId: string, options: { after?: number; json?: boolean }) => {
      const printEvent = ({ seq, event }: RunEventView) =>
        process.stdout.write(options.json ? `${JSON.stringify({ id: seq, event })}\n` : `id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
      await collect(
        InvocationPatterns.requestEvents,
        { workspace_id: workspaceId, request_id: requestId, after: options.after },
        printEvent,
      );
      if (!options.json) process.stdout.write('data: [DONE]\n\n');
    });
}
