import type { WorkflowVariant } from '@waggle/workflows';
import type { PublishedVariant } from '../../deployments/deployment.repository';
import type { WorkflowVersionEntity } from './entities/workflow-version.entity';
import { workflowOutputSchema, workflowToolDescriptor, workflowToolName } from './workflow-mcp-tool';

const PLACE = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

const variant = (overrides: Partial<WorkflowVariant> = {}): WorkflowVariant => ({
  name: 'default',
  inputs: {
    topic: { type: 'text', required: true },
    count: { type: 'number', required: false, default: 3 },
    strict: { type: 'boolean', required: false },
    extra: { type: 'json', required: false, default: { a: 1 } },
  },
  output: '{{ ask.output }}',
  steps: [
    {
      id: 'ask',
      type: 'prompt',
      on_error: 'fail',
      model: 'm',
      messages: [{ role: 'user', content: '{{ topic }}' }],
      response_format: { type: 'json_schema', schema: PLACE },
    },
    { id: 'note', type: 'template', on_error: 'fail', text: 'x' },
  ],
  ...overrides,
});

const published = (definition: WorkflowVariant | null, publish = { mcp: true }): PublishedVariant<WorkflowVersionEntity> => ({
  deployment: 'Brief-Maker',
  variant: 'default',
  publish,
  currentVersion: definition && ({ definition } as WorkflowVersionEntity),
});

describe('a published workflow variant as an MCP tool', () => {
  it('takes its declared inputs as arguments: types mapped, required kept, defaults as default, nothing else', () => {
    expect(workflowToolDescriptor(published(variant()))).toEqual({
      name: 'workflow_brief_maker_default',
      description: 'Runs the workflow "Brief-Maker" (variant "default").',
      input_schema: {
        type: 'object',
        properties: {
          topic: { type: 'string' },
          count: { type: 'number', default: 3 },
          strict: { type: 'boolean' },
          extra: { description: 'Any JSON value', default: { a: 1 } },
        },
        required: ['topic'],
        additionalProperties: false,
      },
      output_schema: PLACE,
      target: { kind: 'workflow', deployment: 'Brief-Maker', variant: 'default' },
    });
  });

  it('has an output schema only where the output is one top-level prompt step’s structured answer', () => {
    expect(workflowOutputSchema(variant())).toEqual(PLACE);
    expect(workflowOutputSchema(variant({ output: '{{- ask.output -}}' }))).toEqual(PLACE);
    expect(workflowOutputSchema(variant({ output: 'Answer: {{ ask.output }}' }))).toBeNull();
    expect(workflowOutputSchema(variant({ output: '{{ note.output }}' }))).toBeNull();
    expect(workflowOutputSchema(variant({ output: '{{ ask.output | upcase }}' }))).toBeNull();
    expect(workflowOutputSchema(variant({ output: '{{ missing.output }}' }))).toBeNull();
    const arraySchema = variant({
      steps: [
        {
          id: 'ask',
          type: 'prompt',
          on_error: 'fail',
          model: 'm',
          messages: [{ role: 'user', content: 'x' }],
          response_format: { type: 'json_schema', schema: { type: 'array' } },
        },
      ],
    });
    expect(workflowOutputSchema(arraySchema)).toBeNull();
  });

  it('takes the publish name and description, and is no tool unpublished or without a version', () => {
    expect(
      workflowToolDescriptor(published(variant(), { mcp: true, tool_name: 'brief', description: 'Writes a brief' } as never)),
    ).toMatchObject({
      name: 'brief',
      description: 'Writes a brief',
    });
    expect(workflowToolName('a', 'b', { mcp: false })).toBeNull();
    expect(workflowToolDescriptor(published(null))).toBeNull();
  });
});
