import type { WorkflowStep } from '@waggle/workflows';
import { isSideEffectFree } from './workflow-engine';

const step = (fields: Record<string, unknown>) => ({ id: 's', on_error: 'fail', ...fields }) as unknown as WorkflowStep;

describe('isSideEffectFree: which steps get one record write, when they end', () => {
  it.each([
    ['a template', step({ type: 'template', text: 'x' }), true],
    ['a model call with its own messages', step({ type: 'prompt', model: 'm', messages: [] }), true],
    ['a deployed prompt (its variant may call tools)', step({ type: 'prompt', deployment: 'd', variant: 'v' }), false],
    ['an http call', step({ type: 'http', method: 'GET', url: 'https://example.com' }), false],
    ['an agent', step({ type: 'agent', agent: 'a', message: 'm' }), false],
    ['a scrape', step({ type: 'scrape', url: 'https://example.com' }), false],
    ['an MCP tool call', step({ type: 'mcp_tool', server: 'calc', tool: 'add', arguments: {} }), false],
    ['a loop (its iterations have records)', step({ type: 'loop', over: '[]', steps: [step({ type: 'template', text: 'x' })] }), false],
    [
      'a condition with only side-effect-free branches',
      step({ type: 'condition', when: {}, then: [step({ type: 'template', text: 'x' })], else: [step({ type: 'prompt', model: 'm' })] }),
      true,
    ],
    [
      'a condition with an http step in a branch',
      step({ type: 'condition', when: {}, then: [step({ type: 'template', text: 'x' })], else: [step({ type: 'http', url: 'u' })] }),
      false,
    ],
  ])('%s: %s', (_name, candidate, expected) => {
    expect(isSideEffectFree(candidate)).toBe(expected);
  });
});
