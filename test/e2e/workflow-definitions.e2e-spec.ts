import type {
  AppliedDeployment,
  AppliedWorkflowDeployment,
  WorkflowDeploymentSummary,
  WorkflowVersionSummary,
  WorkflowWebhookSecretView,
} from '@waggle/contracts';
import { cliJson, freePort, REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'dist/tools/cli/src/main.js');

/** A definition file with a prompt deployment and a workflow deployment (`summary` text changes between versions). */
const definitions = (summary: string) => `
prompts:
  - deployment: e2e-reply
    variants:
      - { name: default, model: gpt-6-luna, messages: [ { role: user, content: "{{ question }}" } ] }
workflows:
  - deployment: research
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ summary.output }}"
        steps:
          - { id: search, type: web_search, query: "{{ topic }}", num_results: 3 }
          - id: summary
            type: prompt
            model: gpt-6-luna
            messages: [ { role: user, content: "${summary}" } ]
`;

/** The JSON a client posts to the private apply route: a later step referenced too early. */
const brokenWorkflows = [
  {
    deployment: 'broken',
    variants: [
      {
        name: 'default',
        inputs: { topic: { type: 'text', required: true } },
        output: '{{ search.output }}',
        steps: [
          { id: 'note', type: 'template', text: 'About {{ topic }}' },
          { id: 'search', type: 'web_search', query: '{{ later.output }} {{ topic }}' },
          { id: 'later', type: 'template', text: 'late' },
        ],
      },
    ],
  },
];

interface Workspace {
  id: string;
  key: string;
}

/**
 * Workflow definitions through the whole path a client takes: `cli apply` of a YAML file
 * holding prompts and workflows, the private routes of the gateway over HTTP (apply, list,
 * versions, the webhook secret), refusals as 422 `validation_error` with the definition's
 * field paths, and workspace isolation.
 */
describe('workflow definitions: cli apply and /v1/private/workflows', () => {
  const apps: AppProcess[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'waggle-workflows-'));
  let gateway: string;
  let a: Workspace;
  let b: Workspace;

  const write = (name: string, text: string) => {
    const file = join(directory, name);
    writeFileSync(file, text);
    return file;
  };
  async function call<T>(who: Workspace, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  beforeAll(async () => {
    for (const app of ['catalog', 'invocation', 'gateway'] as const) apps.push(spawnApp(app, await freePort(), { LOG_LEVEL: 'warn' }));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[apps.length - 1].baseUrl;
    const workspace = async (name: string) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name]);
      return { id: made.workspace_id, key: made.api_key };
    };
    [a, b] = [await workspace('e2e workflows A'), await workspace('e2e workflows B')];
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it('applies prompts and workflows of one file with the CLI, and changes nothing the second time', async () => {
    const file = write('v1.yaml', definitions('Summarise {{ search.output }} for {{ topic }}'));
    const first = await cliJson<{ prompts: AppliedDeployment[]; workflows: AppliedWorkflowDeployment[] }>([
      'apply',
      '-f',
      file,
      '--workspace',
      a.id,
    ]);
    expect(first).toEqual({
      prompts: [expect.objectContaining({ deployment: 'e2e-reply', created: true })],
      workflows: [
        {
          deployment: 'research',
          workflow_deployment_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
          created: true,
          variants: [{ name: 'default', variant_id: expect.stringMatching(/^[0-9a-f-]{36}$/), version: 1, changed: true }],
        },
      ],
    });
    const again = await cliJson<{ workflows: AppliedWorkflowDeployment[] }>(['apply', '-f', file, '--workspace', a.id]);
    expect(again.workflows).toEqual([
      { ...first.workflows[0], created: false, variants: [{ ...first.workflows[0].variants[0], changed: false }] },
    ]);

    // A file with only workflows works too; a prompt-only file keeps the plain list output.
    const onlyWorkflows = write(
      'only-workflows.yaml',
      definitions('Summarise {{ search.output }} for {{ topic }}').replace(/prompts:[\s\S]*?workflows:/, 'workflows:'),
    );
    expect(await cliJson<unknown>(['apply', '-f', onlyWorkflows, '--workspace', a.id])).toEqual({
      prompts: [],
      workflows: again.workflows,
    });
    const onlyPrompts = write('only-prompts.yaml', definitions('x').split('workflows:')[0]);
    expect(await cliJson<unknown>(['apply', '-f', onlyPrompts, '--workspace', a.id])).toEqual([
      expect.objectContaining({ deployment: 'e2e-reply', created: false }),
    ]);
  });

  it('applies a changed workflow through the private route as version 2; versions lists both with their definitions', async () => {
    const changed = [
      {
        deployment: 'research',
        variants: [
          {
            name: 'default',
            inputs: { topic: { type: 'text', required: true } },
            output: '{{ summary.output }}',
            steps: [
              { id: 'search', type: 'web_search', query: '{{ topic }}', num_results: 3 },
              { id: 'summary', type: 'prompt', model: 'gpt-6-luna', messages: [{ role: 'user', content: 'Briefly: {{ search.output }}' }] },
            ],
          },
        ],
      },
    ];
    const applied = await call<{ workflows: AppliedWorkflowDeployment[] }>(a, 'POST', '/v1/private/workflows/apply', {
      workflows: changed,
    });
    expect(applied.status).toBe(200);
    expect(applied.body.workflows).toEqual([
      expect.objectContaining({
        deployment: 'research',
        created: false,
        variants: [expect.objectContaining({ version: 2, changed: true })],
      }),
    ]);

    const versions = await call<{ versions: WorkflowVersionSummary[] }>(
      a,
      'GET',
      '/v1/private/workflows/research/variants/default/versions',
    );
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map(({ version, current }) => ({ version, current }))).toEqual([
      { version: 2, current: true },
      { version: 1, current: false },
    ]);
    expect(versions.body.versions[1]).toEqual({
      version_id: expect.any(String),
      version: 1,
      created_at: expect.any(String),
      current: false,
      definition: {
        name: 'default',
        inputs: { topic: { type: 'text', required: true } },
        output: '{{ summary.output }}',
        steps: [
          { id: 'search', type: 'web_search', query: '{{ topic }}', num_results: 3, on_error: 'fail' },
          {
            id: 'summary',
            type: 'prompt',
            model: 'gpt-6-luna',
            messages: [{ role: 'user', content: 'Summarise {{ search.output }} for {{ topic }}' }],
            on_error: 'fail',
          },
        ],
      },
    });
    const cliVersions = await cliJson<WorkflowVersionSummary[]>(['workflow', 'versions', a.id, 'research', 'default']);
    expect(cliVersions).toEqual(versions.body.versions);

    const listed = await call<{ workflows: WorkflowDeploymentSummary[] }>(a, 'GET', '/v1/private/workflows');
    expect(listed).toEqual({
      status: 200,
      body: {
        workflows: [
          {
            deployment: 'research',
            workflow_deployment_id: applied.body.workflows[0].workflow_deployment_id,
            created_at: expect.any(String),
            variants: [
              {
                name: 'default',
                variant_id: applied.body.workflows[0].variants[0].variant_id,
                version: 2,
                inputs: { topic: { type: 'text', required: true } },
              },
            ],
          },
        ],
      },
    });
    expect(await cliJson<WorkflowDeploymentSummary[]>(['workflow', 'list', a.id])).toEqual(listed.body.workflows);
  });

  it('refuses broken definitions with 422 validation_error naming each field path, writing nothing', async () => {
    const refused = await call<Record<string, unknown>>(a, 'POST', '/v1/private/workflows/apply', { workflows: brokenWorkflows });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error_code: 'validation_error',
      message:
        'The workflow definitions are invalid: workflows[0].variants[0].steps[1].query: refers to step later, which does not run before this point',
      details: [
        { field: 'workflows[0].variants[0].steps[1].query', messages: ['refers to step later, which does not run before this point'] },
      ],
    });

    const unknownModel = await call<Record<string, unknown>>(a, 'POST', '/v1/private/workflows/apply', {
      workflows: [
        {
          deployment: 'broken',
          variants: [
            {
              name: 'default',
              inputs: {},
              output: 'x',
              steps: [{ id: 'ask', type: 'prompt', model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }],
            },
          ],
        },
      ],
    });
    expect(unknownModel).toMatchObject({
      status: 422,
      body: {
        error_code: 'validation_error',
        details: [{ field: 'workflows[0].variants[0].steps[0].model', messages: ['unknown model no-such-model'] }],
      },
    });

    const notAList = await call<Record<string, unknown>>(a, 'POST', '/v1/private/workflows/apply', { workflows: 'nope' });
    expect(notAList).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });

    // The CLI prints each problem as `field: message` and exits 1.
    const file = write('broken.yaml', `workflows: ${JSON.stringify(brokenWorkflows)}\n`);
    const failure = await run(process.execPath, [CLI, 'apply', '-f', file, '--workspace', a.id]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain(
      'workflows[0].variants[0].steps[1].query: refers to step later, which does not run before this point\n',
    );
    const jsonFailure = await run(process.execPath, [CLI, 'apply', '-f', file, '--workspace', a.id, '--json']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(jsonFailure).toMatchObject({ code: 1 });
    expect(JSON.parse((jsonFailure as { stderr: string }).stderr)).toMatchObject({
      error_code: 'validation_error',
      details: [{ field: 'workflows[0].variants[0].steps[1].query' }],
    });

    const listed = await call<{ workflows: WorkflowDeploymentSummary[] }>(a, 'GET', '/v1/private/workflows');
    expect(listed.body.workflows.map((workflow) => workflow.deployment)).toEqual(['research']);
  });

  it('shows and rotates the webhook secret through the routes and the CLI', async () => {
    const shown = await call<{ webhook_secret: WorkflowWebhookSecretView }>(a, 'GET', '/v1/private/workflows/research/webhook_secret');
    expect(shown).toEqual({
      status: 200,
      body: {
        webhook_secret: {
          deployment: 'research',
          workflow_deployment_id: expect.any(String),
          webhook_secret: expect.stringMatching(/^whsec_/),
          previous_secret_expires_at: null,
        },
      },
    });
    const rotated = await call<{ webhook_secret: WorkflowWebhookSecretView }>(
      a,
      'POST',
      '/v1/private/workflows/research/webhook_secret/rotate',
      { overlap_seconds: 600 },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook_secret.webhook_secret).not.toBe(shown.body.webhook_secret.webhook_secret);
    expect(rotated.body.webhook_secret.previous_secret_expires_at).toEqual(expect.any(String));
    expect(await cliJson<WorkflowWebhookSecretView>(['workflow', 'webhook-secret', 'show', a.id, 'research'])).toEqual(
      rotated.body.webhook_secret,
    );
    const byCli = await cliJson<WorkflowWebhookSecretView>([
      'workflow',
      'webhook-secret',
      'rotate',
      a.id,
      'research',
      '--overlap',
      '0',
      '--yes',
    ]);
    expect(byCli).toMatchObject({ deployment: 'research', previous_secret_expires_at: null });
    expect(byCli.webhook_secret).not.toBe(rotated.body.webhook_secret.webhook_secret);

    const badOverlap = await call<Record<string, unknown>>(a, 'POST', '/v1/private/workflows/research/webhook_secret/rotate', {
      overlap_seconds: -1,
    });
    expect(badOverlap).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
  });

  it("keeps workspaces apart: B sees none of A's workflows and reaches none by name", async () => {
    expect(await call(b, 'GET', '/v1/private/workflows')).toEqual({ status: 200, body: { workflows: [] } });
    for (const [method, path] of [
      ['GET', '/v1/private/workflows/research/variants/default/versions'],
      ['GET', '/v1/private/workflows/research/webhook_secret'],
      ['POST', '/v1/private/workflows/research/webhook_secret/rotate'],
    ] as const) {
      const answer = await call<Record<string, unknown>>(b, method, path, method === 'POST' ? {} : undefined);
      expect(answer).toMatchObject({ status: 404, body: { error_code: 'resource_not_found', message: 'Deployment not found: research' } });
    }
    // B's own deployment of the same name is its own.
    const mine = await call<{ workflows: AppliedWorkflowDeployment[] }>(b, 'POST', '/v1/private/workflows/apply', {
      workflows: brokenWorkflows.map((workflow) => ({
        ...workflow,
        deployment: 'research',
        variants: [{ ...workflow.variants[0], steps: workflow.variants[0].steps.slice(0, 1), output: '{{ note.output }}' }],
      })),
    });
    expect(mine).toMatchObject({
      status: 200,
      body: { workflows: [{ deployment: 'research', created: true, variants: [{ version: 1 }] }] },
    });
    const versionsOfA = await call<{ versions: WorkflowVersionSummary[] }>(
      a,
      'GET',
      '/v1/private/workflows/research/variants/default/versions',
    );
    expect(versionsOfA.body.versions).toHaveLength(2);
  });
});
