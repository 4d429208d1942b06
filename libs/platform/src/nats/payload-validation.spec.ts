import { ValidationPipe, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { CreateAgentFields, PromptRunRequest, WorkflowRunRequest } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { compileBodyValidator } from '../validation/compiled-validation';
import { createPayloadPipe, VALIDATION_PIPE_OPTIONS } from './validation';

type Outcome = { accepted: { type: string; json: string } } | { refused: unknown };

const metadata: ArgumentMetadata = { type: 'body', metatype: undefined, data: undefined };

async function outcomeOf(pipe: PipeTransform, payload: unknown): Promise<Outcome> {
  try {
    const value = (await pipe.transform(structuredClone(payload), metadata)) as object;
    return { accepted: { type: value.constructor.name, json: JSON.stringify(value) } };
  } catch (error) {
    if (!(error instanceof WaggleException)) throw error;
    return { refused: error.toWire() };
  }
}

/** What the payload pipe did before it had compiled validators: class-validator on every payload. */
const reference = (requestClass: new () => object) => new ValidationPipe({ ...VALIDATION_PIPE_OPTIONS, expectedType: requestClass });

const WORKSPACE = '7d5c2b8e-3f4a-4c1d-9e2b-6a8f0c1d2e3f';
const REQUEST = `req_${'a'.repeat(32)}`;
const limits = { concurrency: 3, steps_per_run: null, tool_calls_per_day: 15 };

const table: Array<{ target: new () => object; payloads: Array<[string, unknown]> }> = [
  {
    target: WorkflowRunRequest,
    payloads: [
      ['a sync invoke', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', inputs: { a: 1 }, limits }],
      [
        'an async invoke with metadata and a user',
        {
          workspace_id: WORKSPACE,
          request_id: REQUEST,
          deployment: 'd',
          variant: 'v',
          async: { enabled: true, callback_url: 'https://example.com/hook' },
          metadata: { a: 'x' },
          user: 'u',
          limits,
        },
      ],
      ['limits missing', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v' }],
      [
        'a limit negative',
        { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', limits: { ...limits, concurrency: -1 } },
      ],
      ['a limit unknown', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', limits: { ...limits, x: 1 } }],
      ['workspace not a uuid', { workspace_id: 'w', request_id: REQUEST, deployment: 'd', variant: 'v', limits }],
      ['an unknown field', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', limits, extra: true }],
      ['not an object', 'payload'],
    ],
  },
  {
    target: PromptRunRequest,
    payloads: [
      ['an invoke', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', inputs: { topic: 't' } }],
      ['deployment empty', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: '', variant: 'v' }],
      ['request id malformed', { workspace_id: WORKSPACE, request_id: 'req_1', deployment: 'd', variant: 'v' }],
      ['an unknown field', { workspace_id: WORKSPACE, request_id: REQUEST, deployment: 'd', variant: 'v', extra: 1 }],
    ],
  },
];

describe('NATS payload validation with compiled validators', () => {
  for (const { target, payloads } of table) {
    describe(target.name, () => {
      it('is compiled', () => {
        expect(typeof compileBodyValidator(target)).toBe('function');
      });

      it.each(payloads)('answers %s exactly as class-validator does', async (_name, payload) => {
        expect(await outcomeOf(createPayloadPipe(target), payload)).toEqual(await outcomeOf(reference(target), payload));
      });
    });
  }

  it('leaves a class whose values class-transformer changes (@Transform) to class-validator, so the transform still applies', async () => {
    expect(compileBodyValidator(CreateAgentFields)).toBeUndefined();
    const payload = { name: 'a', llm_model: 'm', model_type: 'chat', max_token: '12' };
    const outcome = await outcomeOf(createPayloadPipe(CreateAgentFields), payload);
    expect(outcome).toEqual(await outcomeOf(reference(CreateAgentFields), payload));
  });
});
