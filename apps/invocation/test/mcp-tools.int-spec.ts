import { InvocationPatterns, type McpToolDescriptor } from '@waggle/contracts';
import { freePort, spawnApp, startServiceUnderTest, waitUntilLive, type AppProcess, type ServiceUnderTest } from '@waggle/testing';
import { WaggleException } from '@waggle/errors';
import { randomUUID } from 'node:crypto';
import { bootstrap } from '../src/bootstrap';

const PLACE = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

const variant = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  model: 'gpt-6-luna',
  messages: [{ role: 'user', content: 'About {{ topic }} for {{ reader }}' }],
  ...extra,
});

const flow = (deployment: string, publish?: Record<string, unknown>) => ({
  deployment,
  variants: [
    {
      name: 'default',
      inputs: { topic: { type: 'text', required: true }, depth: { type: 'number', required: false, default: 2 } },
      output: '{{ ask.output }}',
      steps: [
        {
          id: 'ask',
          type: 'prompt',
          model: 'gpt-6-luna',
          messages: [{ role: 'user', content: '{{ topic }}' }],
          response_format: { type: 'json_schema', schema: PLACE },
        },
      ],
      ...(publish && { publish }),
    },
  ],
});

/**
 * The invocation service's MCP tools over NATS (the spec's decisions, MCP), started in-process
 * with the real catalog answering its model checks: the published prompt and workflow variants
 * of a workspace as tool descriptors (and nothing of another workspace's), and the uniqueness of
 * their names, which two applies racing for one name cannot both take.
 */
describe('invocation service over NATS: MCP tools', () => {
  const workspaceId = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;

  const applyPrompts = (prompts: unknown[], workspace = workspaceId) =>
    service.send(InvocationPatterns.applyPrompts, { workspace_id: workspace, prompts } as never);
  const applyWorkflows = (workflows: unknown[], workspace = workspaceId) =>
    service.send(InvocationPatterns.applyWorkflows, { workspace_id: workspace, workflows });
  const tools = (workspace = workspaceId): Promise<McpToolDescriptor[]> =>
    service.send(InvocationPatterns.listMcpTools, { workspace_id: workspace });

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
  });

  afterAll(async () => {
    await service?.stop();
    await catalog?.stop();
  });

  it('lists the published variants as tools, prompts then workflows, each with its schemas and its target', async () => {
    await applyPrompts([
      {
        deployment: 'guides',
        variants: [
          variant('default', { publish: { mcp: true } }),
          variant('hidden'),
          variant('off', { publish: { mcp: false, tool_name: 'off_tool' } }),
          variant('places', {
            publish: { mcp: true, tool_name: 'places', description: 'Finds a city' },
            response_format: { type: 'json_schema', schema: PLACE },
          }),
        ],
      },
    ]);
    await applyWorkflows([flow('brief', { mcp: true })]);
    expect(await tools()).toEqual([
      {
        name: 'prompt_guides_default',
        description: 'Runs the prompt "guides" (variant "default") with its template variables topic, reader.',
        input_schema: {
          type: 'object',
          properties: { topic: { type: 'string' }, reader: { type: 'string' } },
          required: ['topic', 'reader'],
          additionalProperties: false,
        },
        output_schema: null,
        target: { kind: 'prompt', deployment: 'guides', variant: 'default' },
      },
      expect.objectContaining({ name: 'places', description: 'Finds a city', output_schema: PLACE }),
      {
        name: 'workflow_brief_default',
        description: 'Runs the workflow "brief" (variant "default").',
        input_schema: {
          type: 'object',
          properties: { topic: { type: 'string' }, depth: { type: 'number', default: 2 } },
          required: ['topic'],
          additionalProperties: false,
        },
        output_schema: PLACE,
        target: { kind: 'workflow', deployment: 'brief', variant: 'default' },
      },
    ]);
    expect(await tools(randomUUID())).toEqual([]);
  });

  it('lets only one of two applies racing for one tool name take it: the other is refused, writing nothing', async () => {
    const racing = [
      applyPrompts([{ deployment: 'race-a', variants: [variant('default', { publish: { mcp: true, tool_name: 'raced' } })] }]),
      applyWorkflows([flow('race-b', { mcp: true, tool_name: 'raced' })]),
    ];
    const settled = await Promise.allSettled(racing);
    expect(settled.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')?.reason as WaggleException;
    expect(refused).toBeInstanceOf(WaggleException);
    expect(refused).toMatchObject({ code: 'validation_error', status: 422, detail: 'mcp_tool_name_taken', params: { name: 'raced' } });
    expect((await tools()).filter((tool) => tool.name === 'raced')).toHaveLength(1);
  });
});
