import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AgentRunRequest, RotateAgentWebhookSecretRequest } from './agent.patterns';
import {
  PromptRunRequest,
  RotatePromptWebhookSecretRequest,
  RotateWorkflowWebhookSecretRequest,
  WorkflowInvokeInputs,
} from './invocation.patterns';
import type { RequestClass } from './rpc-contract';
import { RunLabels } from './run-labels';
import { WebhookSecretRotation } from './webhook-owners';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const REQUEST_ID = `req_${'0'.repeat(32)}`;

/** The failing fields, or the transformed request when it is valid, as the validation pipes see it. */
function check<T extends object>(type: RequestClass<T>, payload: object): { fields: string[]; request: T } {
  const request = plainToInstance(type, payload);
  const errors = validateSync(request, { whitelist: true, forbidNonWhitelisted: true });
  return { fields: errors.map((error) => error.property), request };
}

describe('the shared request pieces of the run and webhook-secret contracts', () => {
  const runs: Array<[string, RequestClass<object>, object]> = [
    ['RunLabels', RunLabels, {}],
    ['a prompt run', PromptRunRequest, { workspace_id: WORKSPACE, request_id: REQUEST_ID, deployment: 'd', variant: 'v', inputs: {} }],
    ['an agent run', AgentRunRequest, { workspace_id: WORKSPACE, request_id: REQUEST_ID, agent: 'a', message: 'hi' }],
    ['a workflow invoke', WorkflowInvokeInputs, { deployment: 'd', variant: 'v' }],
  ];

  it.each(runs)('%s takes flat metadata and a user label, and refuses nested metadata and a long label', (_name, type, base) => {
    expect(check(type, { ...base, metadata: { team: 'a', n: 1, ok: true, none: null }, user: 'u-1' }).fields).toEqual([]);
    expect(check(type, { ...base, metadata: { nested: { no: 1 } } }).fields).toEqual(['metadata']);
    expect(check(type, { ...base, user: 'x'.repeat(257) }).fields).toEqual(['user']);
    expect(check(type, { ...base, labels: {} }).fields).toEqual(['labels']);
  });

  const rotations: Array<[string, RequestClass<{ overlap_seconds?: number }>, object]> = [
    ['WebhookSecretRotation', WebhookSecretRotation, {}],
    ['an agent rotation', RotateAgentWebhookSecretRequest, { workspace_id: WORKSPACE, agent_id: 'a' }],
    ['a prompt deployment rotation', RotatePromptWebhookSecretRequest, { workspace_id: WORKSPACE, deployment: 'd' }],
    ['a workflow deployment rotation', RotateWorkflowWebhookSecretRequest, { workspace_id: WORKSPACE, deployment: 'd' }],
  ];

  it.each(rotations)('%s takes an overlap of 0 to 30 days, a string one as a number, or none', (_name, type, base) => {
    expect(check(type, base).fields).toEqual([]);
    expect(check(type, { ...base, overlap_seconds: '600' }).request.overlap_seconds).toBe(600);
    expect(check(type, { ...base, overlap_seconds: 30 * 24 * 3600 }).fields).toEqual([]);
    expect(check(type, { ...base, overlap_seconds: 30 * 24 * 3600 + 1 }).fields).toEqual(['overlap_seconds']);
    expect(check(type, { ...base, overlap_seconds: -1 }).fields).toEqual(['overlap_seconds']);
    expect(check(type, { ...base, overlap_seconds: 1.5 }).fields).toEqual(['overlap_seconds']);
  });

  it('names a deployment rotation by workspace and deployment, both required', () => {
    expect(check(RotatePromptWebhookSecretRequest, {}).fields).toEqual(['workspace_id', 'deployment']);
    expect(check(RotateWorkflowWebhookSecretRequest, { workspace_id: 'nope', deployment: '' }).fields).toEqual([
      'workspace_id',
      'deployment',
    ]);
  });
});
