import type { RunKind } from '@waggle/contracts';
import { runCallbackBody, type FinishedRun } from './run-callback-body';

const ended = { ended_at: '2026-01-01T00:00:00.000Z' };
const usage = { input_tokens: 3, output_tokens: 5, total_tokens: 8 };

/**
 * The callback body of every kind of run, as its ledger record holds the run (a workflow's record
 * is ledgerRecordOf its row: `{output}`, `{error, error_code}` or `{reason}`), compared as the
 * JSON the receiver gets, byte for byte: key order included, since a receiver verifies the
 * signature of exactly these bytes.
 */
describe('runCallbackBody, one wire format for every kind of run', () => {
  const cases: Array<[what: string, kind: RunKind, run: FinishedRun, json: string]> = [
    [
      "a prompt's answer, with the model and usage of its record",
      'prompt',
      { ...ended, status: 'completed', data: { response: 'hi' }, usage, model: 'gpt-x' },
      '{"event_type":"prompt.completed","request_id":"req_1","data":{"response":"hi","usage":{"input_tokens":3,"output_tokens":5,"total_tokens":8},"model":"gpt-x"}}',
    ],
    [
      "an agent's answer, with the model and usage its data holds (as the ledger's lookup answers them)",
      'agent',
      { ...ended, status: 'completed', data: { response: 'hi', usage, model: 'model-id' }, model: 'route-name' },
      '{"event_type":"agent.completed","request_id":"req_1","data":{"response":"hi","usage":{"input_tokens":3,"output_tokens":5,"total_tokens":8},"model":"model-id"}}',
    ],
    [
      'an answer without a response, usage or model',
      'prompt',
      { ...ended, status: 'completed', data: null },
      '{"event_type":"prompt.completed","request_id":"req_1","data":{"response":"","usage":null,"model":""}}',
    ],
    [
      "a workflow's output",
      'workflow',
      { ...ended, status: 'completed', data: { output: 'done' }, usage: { total_tokens: 120, steps_executed: 4 } },
      '{"event_type":"workflow.completed","request_id":"req_1","data":{"output":"done"}}',
    ],
    [
      'a workflow without output',
      'workflow',
      { ...ended, status: 'completed', data: { output: null } },
      '{"event_type":"workflow.completed","request_id":"req_1","data":{"output":""}}',
    ],
    [
      "a prompt's failure",
      'prompt',
      { ...ended, status: 'failed', data: { error: 'Model deprecated', error_code: 'model_deprecated' } },
      '{"event_type":"prompt.failed","request_id":"req_1","data":{"error":"Model deprecated","error_code":"model_deprecated"}}',
    ],
    [
      "an agent's failure without error or code",
      'agent',
      { ...ended, status: 'failed', data: null },
      '{"event_type":"agent.failed","request_id":"req_1","data":{"error":"The run failed","error_code":"internal_server_error"}}',
    ],
    [
      "a workflow's failure",
      'workflow',
      { ...ended, status: 'failed', data: { error: 'boom', error_code: 'provider_error' } },
      '{"event_type":"workflow.failed","request_id":"req_1","data":{"error":"boom","error_code":"provider_error"}}',
    ],
    [
      "a workflow's failure without error or code",
      'workflow',
      { ...ended, status: 'failed', data: { error: null, error_code: null } },
      '{"event_type":"workflow.failed","request_id":"req_1","data":{"error":"The workflow run failed","error_code":"internal_server_error"}}',
    ],
    ...(['prompt', 'agent', 'workflow'] as const).map((kind): [string, RunKind, FinishedRun, string] => [
      `a cancelled ${kind} run: only the reason, whatever partial usage its record holds`,
      kind,
      { ...ended, status: 'cancelled', data: { reason: 'cancelled' }, usage },
      `{"event_type":"${kind}.cancelled","request_id":"req_1","data":{"reason":"cancelled"}}`,
    ]),
  ];

  it.each(cases)('%s', (_what, kind, run, json) => {
    expect(JSON.stringify(runCallbackBody(kind, 'req_1', run))).toBe(json);
  });

  it('covers every kind of run for every end', () => {
    const covered = new Set(cases.map(([, kind, run]) => `${kind}.${run.status}`));
    for (const kind of ['prompt', 'agent', 'workflow'])
      for (const status of ['completed', 'failed', 'cancelled']) expect(covered).toContain(`${kind}.${status}`);
  });
});
