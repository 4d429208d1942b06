import type { PublishedVariant } from '../deployments/deployment.repository';
import type { PromptVersionEntity } from './entities/prompt-version.entity';
import { promptToolDescriptor } from './prompt-mcp-tool';

const version = (overrides: Partial<PromptVersionEntity> = {}) =>
  ({ variables: ['product', 'photo'], imageInputs: ['photo'], responseFormat: null, ...overrides }) as PromptVersionEntity;

const published = (
  currentVersion: PromptVersionEntity | null,
  publish: PublishedVariant<PromptVersionEntity>['publish'] = { mcp: true },
) => ({
  deployment: 'help.desk',
  variant: 'EN',
  publish,
  currentVersion,
});

describe('a published prompt variant as an MCP tool', () => {
  it('takes its template variables as required strings (an image input said to be a URL) and answers text', () => {
    expect(promptToolDescriptor(published(version()))).toEqual({
      name: 'prompt_help_desk_en',
      description: 'Runs the prompt "help.desk" (variant "EN") with its template variables product, photo.',
      input_schema: {
        type: 'object',
        properties: { product: { type: 'string' }, photo: { type: 'string', description: 'The URL of an image' } },
        required: ['product', 'photo'],
        additionalProperties: false,
      },
      output_schema: null,
      target: { kind: 'prompt', deployment: 'help.desk', variant: 'EN' },
    });
  });

  it('answers structured content of its response format’s schema when that schema is an object', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    expect(promptToolDescriptor(published(version({ responseFormat: { type: 'json_schema', schema } })))?.output_schema).toEqual(schema);
    expect(
      promptToolDescriptor(published(version({ responseFormat: { type: 'json_schema', schema: { type: 'string' } } })))?.output_schema,
    ).toBeNull();
  });

  it('takes the publish name and description; a variant without variables takes none; no tool unpublished or versionless', () => {
    expect(
      promptToolDescriptor(published(version({ variables: [], imageInputs: [] }), { mcp: true, tool_name: 'ask', description: 'Asks' })),
    ).toMatchObject({ name: 'ask', description: 'Asks', input_schema: { properties: {}, required: [] } });
    expect(promptToolDescriptor(published(version({ variables: [], imageInputs: [] })))?.description).toBe(
      'Runs the prompt "help.desk" (variant "EN").',
    );
    expect(promptToolDescriptor(published(version(), { mcp: false }))).toBeNull();
    expect(promptToolDescriptor(published(null))).toBeNull();
  });
});
