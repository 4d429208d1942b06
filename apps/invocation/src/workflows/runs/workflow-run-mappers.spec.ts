import { WaggleException } from '@waggle/errors';
import type { WorkflowVariant } from '@waggle/workflows';
import { isFinishedRun, runCallbackBody } from '@waggle/runs';
import { initialScope } from '../engine/workflow-engine';
import { checkInputs } from './usecases/start-workflow-run/check-inputs';
import { ledgerRecordOf, runFailure, toRunView } from './workflow-run-mappers';
import { failureState, type WorkflowRunRow } from './workflow-runs.repository';

const variant: WorkflowVariant = {
  name: 'default',
  inputs: {
    topic: { type: 'text', required: true },
    count: { type: 'number', required: false, default: 3 },
    extra: { type: 'json', required: false },
  },
  output: '{{ topic }}',
  steps: [{ id: 'a', type: 'template', text: 'x', on_error: 'fail' }],
};

const row = (overrides: Partial<WorkflowRunRow> = {}): WorkflowRunRow => ({
  id: 'req_0123456789abcdef0123456789abcdef',
  workspace_id: '7d0c3f4e-41a1-4f60-9c4e-5f0f3f2f1a11',
  deployment_id: '5a4f8f4e-41a1-4f60-9c4e-5f0f3f2f1a12',
  deployment_name: 'brief',
  variant_id: '5a4f8f4e-41a1-4f60-9c4e-5f0f3f2f1a13',
  variant_name: 'default',
  version_id: '5a4f8f4e-41a1-4f60-9c4e-5f0f3f2f1a14',
  version: 2,
  run_status: 'completed',
  run_async: true,
  start_inputs: { topic: 'acme' },
  output_content: 'done',
  error_message: null,
  error_detail: null,
  error_code: null,
  callback_url: 'https://example.com/hook',
  metadata: { team: 'blue' },
  user_label: 'u-1',
  surface: null,
  credits_exhausted: false,
  concurrency_limit: 3,
  step_limit: 50,
  tool_call_limit: 15,
  steps_executed: 4,
  total_tokens: 120,
  cost_micros: null,
  price_version: null,
  credentials: null,
  queue_seq: '1',
  created_at: new Date('2026-11-23T10:00:00.000Z'),
  started_at: new Date('2026-11-23T10:00:01.000Z'),
  ended_at: new Date('2026-11-23T10:00:03.500Z'),
  deadline_at: null,
  lease_owner: null,
  lease_expires_at: null,
  attempts: 1,
  ...overrides,
});

/** A finished run's callback body, as WorkflowRunSettlement announces it: built from its ledger record. */
function callbackBodyOf(run: WorkflowRunRow) {
  const record = ledgerRecordOf(run);
  if (!isFinishedRun(record)) throw new Error(`${run.run_status} is not an end`);
  return runCallbackBody('workflow', run.id, record);
}

describe('workflow run values', () => {
  it('names every missing required input, and every input of the wrong type', () => {
    expect(() => checkInputs(variant, {})).toThrow(
      expect.objectContaining({ code: 'missing_required_field', message: 'Missing required inputs: inputs.topic' }),
    );
    expect(() => checkInputs(variant, { topic: 5, count: 'three' })).toThrow(
      expect.objectContaining({ code: 'validation_error', message: 'Invalid inputs: inputs.topic, inputs.count' }),
    );
    expect(() => checkInputs(variant, { topic: 'acme', extra: { any: ['thing'] } })).not.toThrow();
  });

  it('fills defaults, and null for optional inputs not given', () => {
    expect(initialScope(variant, { topic: 'acme' })).toEqual({ topic: 'acme', count: 3, extra: null });
  });

  it('shows a run as the decisions lookup shape', () => {
    expect(toRunView(row())).toEqual({
      id: 'req_0123456789abcdef0123456789abcdef',
      token: 'req_0123456789abcdef0123456789abcdef',
      run_status: 'completed',
      run_async: true,
      start_inputs: { topic: 'acme' },
      output_content: 'done',
      error_message: null,
      started_at: '2026-11-23T10:00:01.000Z',
      ended_at: '2026-11-23T10:00:03.500Z',
      duration: 2.5,
      total_tokens: 120,
      async_webhook_url: 'https://example.com/hook',
    });
    expect(toRunView(row({ run_status: 'queued', started_at: null, ended_at: null })).duration).toBeNull();
  });

  it('makes the callback bodies of decisions', () => {
    expect(callbackBodyOf(row())).toEqual({ event_type: 'workflow.completed', request_id: row().id, data: { output: 'done' } });
    expect(
      callbackBodyOf(row({ run_status: 'failed', output_content: null, error_message: 'boom', error_code: 'provider_error' })),
    ).toEqual({
      event_type: 'workflow.failed',
      request_id: row().id,
      data: { error: 'boom', error_code: 'provider_error' },
    });
    // Byte for byte as the receiver gets them, defaults included.
    expect(JSON.stringify(callbackBodyOf(row({ output_content: null })))).toBe(
      `{"event_type":"workflow.completed","request_id":"${row().id}","data":{"output":""}}`,
    );
    expect(JSON.stringify(callbackBodyOf(row({ run_status: 'failed', output_content: null })))).toBe(
      `{"event_type":"workflow.failed","request_id":"${row().id}","data":{"error":"The workflow run failed","error_code":"internal_server_error"}}`,
    );
    expect(JSON.stringify(callbackBodyOf(row({ run_status: 'cancelled', output_content: null })))).toBe(
      `{"event_type":"workflow.cancelled","request_id":"${row().id}","data":{"reason":"cancelled"}}`,
    );
  });

  it('records the run in the ledger as a workflow run with its metadata and user label', () => {
    expect(ledgerRecordOf(row())).toMatchObject({
      request_type: 'workflow',
      requestable_type: 'workflow_deployment',
      status: 'completed',
      metadata: { team: 'blue' },
      user: 'u-1',
      duration_ms: 2500,
      data: { output: 'done' },
      surface: null,
    });
    expect(ledgerRecordOf(row())).toMatchObject({ cost_micros: null, price_version: null, credentials: null });
    // Raw SQL reads the bigint as text: the record has the number.
    expect(ledgerRecordOf(row({ cost_micros: '3681' as unknown as number, price_version: 'fake-1', credentials: 'hosted' }))).toMatchObject(
      { cost_micros: 3681, price_version: 'fake-1', credentials: 'hosted' },
    );
    // A run an MCP client started says so in every record of it.
    expect(ledgerRecordOf(row({ surface: 'mcp' }))).toMatchObject({ surface: 'mcp', status: 'completed' });
  });

  it("answers a failed run with its step's code and the request id", () => {
    const failure = runFailure(row({ run_status: 'failed', error_message: 'too many steps', error_code: 'workflow_step_limit_reached' }));
    expect(failure).toBeInstanceOf(WaggleException);
    expect(failure).toMatchObject({
      code: 'workflow_step_limit_reached',
      status: 402,
      message: 'too many steps',
      extra: { request_id: row().id },
    });
    expect(runFailure(row({ run_status: 'failed', error_code: 'not-a-code' })).code).toBe('internal_server_error');
  });

  it("renders a failure stored with its message id in the reader's language, the English as stored", () => {
    const stored = failureState({ detail: 'workflow_run_step_limit', params: { limit: 50 } });
    expect(stored.errorMessage).toBe("The run would execute more than the plan's 50 steps");
    const failure = runFailure(
      row({
        run_status: 'failed',
        error_message: stored.errorMessage,
        error_detail: stored.errorDetail ?? null,
        error_code: 'workflow_step_limit_reached',
      }),
    );
    expect(failure.message).toBe("The run would execute more than the plan's 50 steps");
    expect(failure.messageIn('es')).toBe('La ejecución del flujo de trabajo falló: La ejecución superaría los 50 pasos de su plan');
    // A run stored before error_detail replays its English text.
    expect(runFailure(row({ run_status: 'failed', error_message: 'too many steps' })).messageIn('es')).toBe(
      'La ejecución del flujo de trabajo falló: too many steps',
    );
    // A refusal with only a catalog text is stored in English only.
    expect(failureState({ english: 'Internal server error' })).toEqual({ errorMessage: 'Internal server error', errorDetail: null });
  });
});
