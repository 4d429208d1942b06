import { runCallbackBody, type FinishedRun } from '../announce/run-callback-body';

const ended = { ended_at: '2026-01-01T00:00:00.000Z' };
const usage = { input_tokens: 3, output_tokens: 5, total_tokens: 8 };

describe('the callback body of a triggered run', () => {
  it("takes a prompt run's model and usage from its record", () => {
    const run: FinishedRun = { ...ended, status: 'completed', data: { response: 'hi' }, usage, model: 'gpt-x' };
    expect(runCallbackBody('prompt', 'req_1', run)).toEqual({
      event_type: 'prompt.completed',
      request_id: 'req_1',
      data: { response: 'hi', usage, model: 'gpt-x' },
    });
  });

  it("takes an agent run's model and usage from its data, as the ledger's lookup answers them", () => {
    const run: FinishedRun = { ...ended, status: 'completed', data: { response: 'hi', usage, model: 'model-id' }, model: 'route-name' };
    expect(runCallbackBody('agent', 'req_2', run)).toEqual({
      event_type: 'agent.completed',
      request_id: 'req_2',
      data: { response: 'hi', usage, model: 'model-id' },
    });
  });

  it('announces a failed run with its error and code, and a generic one when the record holds none', () => {
    const failed: FinishedRun = { ...ended, status: 'failed', data: { error: 'Model deprecated', error_code: 'model_deprecated' } };
    expect(runCallbackBody('agent', 'req_3', failed)).toEqual({
      event_type: 'agent.failed',
      request_id: 'req_3',
      data: { error: 'Model deprecated', error_code: 'model_deprecated' },
    });
    expect(runCallbackBody('prompt', 'req_4', { ...ended, status: 'failed', data: null }).data).toEqual({
      error: 'The run failed',
      error_code: 'internal_server_error',
    });
  });

  it('announces a cancelled run as <kind>.cancelled with only the reason, whatever partial usage its record holds', () => {
    const cancelled: FinishedRun = { ...ended, status: 'cancelled', data: { reason: 'cancelled' }, usage };
    expect(runCallbackBody('prompt', 'req_5', cancelled)).toEqual({
      event_type: 'prompt.cancelled',
      request_id: 'req_5',
      data: { reason: 'cancelled' },
    });
    expect(runCallbackBody('agent', 'req_6', { ...ended, status: 'cancelled', data: null }).event_type).toBe('agent.cancelled');
  });
});
