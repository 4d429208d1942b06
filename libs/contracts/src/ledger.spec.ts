import { acceptedTriggerRecord } from './ledger';

describe('acceptedTriggerRecord', () => {
  const job = {
    request_id: `req_${'a'.repeat(32)}`,
    workspace_id: '00000000-0000-4000-8000-000000000001',
    metadata: { team: 'ops' },
    user: 'u-1',
    accepted_at: '2030-01-01T00:00:00.000Z',
  };

  it('records an agent trigger running from its acceptance, with the message and nothing run yet', () => {
    expect(
      acceptedTriggerRecord(job, { request_type: 'agent', requestable_type: 'agent', requestable_id: 'agent-1', message: 'hi' }),
    ).toEqual({
      request_id: job.request_id,
      workspace_id: job.workspace_id,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: 'agent-1',
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model: null,
      status: 'running',
      message: 'hi',
      metadata: { team: 'ops' },
      user: 'u-1',
      generated_at: job.accepted_at,
      started_at: null,
      ended_at: null,
      duration_ms: null,
      usage: null,
      data: null,
    });
  });

  it('records a prompt trigger with the variant and version it pinned, and no message', () => {
    const record = acceptedTriggerRecord(job, {
      request_type: 'prompt',
      requestable_type: 'prompt_deployment',
      requestable_id: 'deployment-1',
      variant: 'default',
      variant_id: 'variant-1',
      version_id: 'version-1',
    });
    expect(record).toMatchObject({
      variant: 'default',
      variant_id: 'variant-1',
      version_id: 'version-1',
      message: null,
      status: 'running',
    });
  });
});
