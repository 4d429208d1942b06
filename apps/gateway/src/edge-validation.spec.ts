import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { WorkflowInvokeInputs } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { compileBodyValidator, createValidationPipe } from '@waggle/platform';
import { AgentInvokeBody } from './agents/agent-invoke.dto';
import { COMPILED_BODY_CLASSES, createEdgeValidationPipe } from './edge-validation';
import { PromptInvokeBody } from './prompts/prompt-invoke.dto';
import { AgentWebhookBody } from './webhooks/agent-webhook.dto';
import { PromptWebhookBody } from './webhooks/prompt-webhook.dto';

type Outcome = { accepted: { type: string; json: string } } | { refused: unknown };

async function outcomeOf(pipe: PipeTransform, body: unknown, metatype: new () => object): Promise<Outcome> {
  const metadata: ArgumentMetadata = { type: 'body', metatype, data: undefined };
  try {
    const value = (await pipe.transform(structuredClone(body), metadata)) as object;
    return { accepted: { type: value.constructor.name, json: JSON.stringify(value) } };
  } catch (error) {
    if (!(error instanceof WaggleException)) throw error;
    return { refused: { message: error.message, wire: error.toWire() } };
  }
}

const longText = (length: number) => 'x'.repeat(length);

/** Bodies every route's class must treat alike: each one class-validator accepts, the compiled form accepts too. */
const shared: Array<[string, unknown]> = [
  ['unknown field', { deployment: 'd', variant: 'v', image_urls: ['a'] }],
  ['metadata nested', { deployment: 'd', variant: 'v', metadata: { a: { b: 1 } } }],
  ['metadata not an object', { deployment: 'd', variant: 'v', metadata: [] }],
  ['metadata non-finite-looking string', { deployment: 'd', variant: 'v', metadata: { a: 'x', b: 1, c: true, d: null } }],
  ['metadata empty key', { deployment: 'd', variant: 'v', metadata: { '': 1 } }],
  ['user too long', { deployment: 'd', variant: 'v', user: longText(257) }],
  ['user not a string', { deployment: 'd', variant: 'v', user: 5 }],
  ['user null', { deployment: 'd', variant: 'v', user: null }],
  ['inputs an array', { deployment: 'd', variant: 'v', inputs: [1] }],
  ['inputs null', { deployment: 'd', variant: 'v', inputs: null }],
  ['constructor key inside inputs', { deployment: 'd', variant: 'v', inputs: { constructor: 'x', a: 1 } }],
  ['__proto__ key', JSON.parse('{"deployment":"d","variant":"v","__proto__":{"x":1}}')],
  ['empty body', {}],
  ['array body', [{ deployment: 'd', variant: 'v' }]],
  ['null body', null],
  ['undefined body', undefined],
];

const table: Array<{ target: new () => object; valid: Array<[string, unknown]>; invalid: Array<[string, unknown]> }> = [
  {
    target: PromptInvokeBody,
    valid: [
      ['minimal', { deployment: 'bench', variant: 'default' }],
      [
        'everything',
        {
          deployment: 'bench',
          variant: 'default',
          inputs: { question: 'hello', nested: { a: [1, { b: null }] } },
          metadata: { a: 'x', b: 2, c: false, d: null },
          user: 'u',
          streaming: true,
        },
      ],
      ['streaming false, empty user', { deployment: 'b', variant: 'v', streaming: false, user: '' }],
    ],
    invalid: [
      ['missing deployment', { variant: 'v' }],
      ['missing both', { inputs: {} }],
      ['deployment empty', { deployment: '', variant: 'v' }],
      ['deployment too long', { deployment: longText(201), variant: 'v' }],
      ['deployment a number', { deployment: 5, variant: 'v' }],
      ['streaming a string', { deployment: 'd', variant: 'v', streaming: 'true' }],
      ['workspace_id given', { deployment: 'd', variant: 'v', workspace_id: '00000000-0000-0000-0000-000000000000' }],
      ['request_id given', { deployment: 'd', variant: 'v', request_id: 'req_x' }],
    ],
  },
  {
    target: AgentInvokeBody,
    valid: [
      ['minimal', { agent: 'a', message: 'hi' }],
      ['with thread', { agent: 'a', message: 'hi', thread_id: 't', streaming: true, metadata: { k: 'v' }, user: 'u' }],
      [
        'history and attachments',
        {
          agent: 'a',
          message: 'hi',
          messages: [
            { content: 'earlier', role: 'user', attachments: ['https://x/y.png', { file_url: 'https://x/z.pdf' }] },
            { content: 'answer', role: 'assistant' },
          ],
          attachments: [{ file_url: 'https://x/a.txt' }],
          image_urls: ['https://x/i.png'],
        },
      ],
      ['empty history', { agent: 'a', message: 'hi', messages: [] }],
    ],
    invalid: [
      ['missing message', { agent: 'a' }],
      ['message a number', { agent: 'a', message: 1 }],
      ['thread empty', { agent: 'a', message: 'hi', thread_id: '' }],
      ['agent_id instead of agent', { agent_id: 'a', message: 'hi' }],
      ['a message without role', { agent: 'a', message: 'hi', messages: [{ content: 'x' }] }],
      ['a message with an unknown field', { agent: 'a', message: 'hi', messages: [{ content: 'x', role: 'user', name: 'n' }] }],
      ['messages not objects', { agent: 'a', message: 'hi', messages: ['x'] }],
      ['messages an object', { agent: 'a', message: 'hi', messages: { content: 'x', role: 'user' } }],
      ['messages nested arrays', { agent: 'a', message: 'hi', messages: [[{ content: 'x', role: 'user' }]] }],
      ['attachment object with another key', { agent: 'a', message: 'hi', attachments: [{ file_url: 'u', x: 1 }] }],
      ['image_urls item too long', { agent: 'a', message: 'hi', image_urls: [longText(4097)] }],
      ['image_urls item not a string', { agent: 'a', message: 'hi', image_urls: [1] }],
    ],
  },
  {
    target: WorkflowInvokeInputs,
    valid: [
      ['minimal', { deployment: 'wf', variant: 'v1' }],
      ['async', { deployment: 'wf', variant: 'v1', inputs: { x: 1 }, async: { enabled: true, callback_url: 'https://example.com/cb' } }],
      ['async disabled', { deployment: 'wf', variant: 'v1', async: { enabled: false } }],
      // class-validator validates each item of an array given for a nested object, and accepts it.
      ['async as an array', { deployment: 'wf', variant: 'v1', async: [{ enabled: true }] }],
    ],
    invalid: [
      ['async without enabled', { deployment: 'wf', variant: 'v1', async: {} }],
      ['async enabled a string', { deployment: 'wf', variant: 'v1', async: { enabled: 'yes' } }],
      ['async unknown field', { deployment: 'wf', variant: 'v1', async: { enabled: true, other: 1 } }],
      ['async a string', { deployment: 'wf', variant: 'v1', async: 'yes' }],
      ['async null', { deployment: 'wf', variant: 'v1', async: null }],
      ['callback_url empty', { deployment: 'wf', variant: 'v1', async: { enabled: true, callback_url: '' } }],
      ['async array with a bad item', { deployment: 'wf', variant: 'v1', async: [{ enabled: 'x' }] }],
    ],
  },
  {
    target: PromptWebhookBody,
    valid: [
      ['inputs and callback', { inputs: { a: '' }, async: { callback_url: 'https://example.com' } }],
      ['nothing', {}],
    ],
    invalid: [
      ['callback_url missing in async', { async: {} }],
      ['callback_url too long', { async: { callback_url: longText(2049) } }],
      ['async an array', { async: [] }],
      ['deployment is unknown here', { deployment: 'd' }],
    ],
  },
  {
    target: AgentWebhookBody,
    valid: [
      ['message and callback', { message: 'hi', thread_id: 't', async: { callback_url: 'https://example.com' } }],
      ['nothing', {}],
    ],
    invalid: [
      ['message a number', { message: 1 }],
      ['thread too long', { message: 'hi', thread_id: longText(257) }],
      ['async unknown field', { async: { callback_url: 'https://example.com', x: 1 } }],
    ],
  },
];

describe('the compiled body validators of the invoke and trigger routes', () => {
  const reference = createValidationPipe();
  const edge = createEdgeValidationPipe();

  it('compiles every invoke and trigger body class', () => {
    for (const target of COMPILED_BODY_CLASSES)
      expect([target.name, typeof compileBodyValidator(target)]).toEqual([target.name, 'function']);
  });

  for (const { target, valid, invalid } of table) {
    describe(target.name, () => {
      const compiled = compileBodyValidator(target) ?? (() => undefined);

      it.each([...valid, ...invalid, ...shared])('answers %s exactly as class-validator does', async (_name, body) => {
        expect(await outcomeOf(edge, body, target)).toEqual(await outcomeOf(reference, body, target));
      });

      it.each(valid)('accepts %s by itself, as an instance of the class', async (_name, body) => {
        const expected = await outcomeOf(reference, body, target);
        expect(expected).toHaveProperty('accepted');
        const accepted = compiled(structuredClone(body));
        expect(accepted).toBeInstanceOf(target);
        expect({ accepted: { type: accepted?.constructor.name, json: JSON.stringify(accepted) } }).toEqual(expected);
      });

      it.each([...invalid, ...shared])('never accepts what class-validator refuses: %s', async (_name, body) => {
        const expected = await outcomeOf(reference, body, target);
        if ('accepted' in expected) return;
        expect(compiled(structuredClone(body))).toBeUndefined();
      });
    });
  }
});
