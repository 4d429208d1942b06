import { InvocationPatterns, type AppliedWorkflowDeployment } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { BaseEnv, loadConfig, NatsRpcClient } from '@waggle/platform';
import {
  expectEventually,
  freePort,
  REPO_ROOT,
  spawnApp,
  startServiceUnderTest,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
  failure,
} from '@waggle/testing';
import { acceptsSecret, SecretSealer, WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import { parseWorkflowYaml } from '@waggle/workflows';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';
import { WorkflowDeploymentsRepository } from '../src/workflows/deployments/workflow-deployments.repository';
import { WorkflowDeploymentsService } from '../src/workflows/deployments/workflow-deployments.service';
import { WorkflowResolutionCache } from '../src/workflows/deployments/workflow-resolution.cache';

/** A small deployment: a template step, then an http call that uses it (text is what changes between versions). */
interface DeploymentFixture {
  deployment: string;
  variants: Array<{ name: string; inputs: Record<string, unknown>; output: string; steps: Array<Record<string, unknown>> }>;
}

function digest(text = 'Notes on {{ topic }}'): DeploymentFixture {
  return {
    deployment: 'daily-digest',
    variants: [
      {
        name: 'default',
        inputs: { topic: { type: 'text', required: true } },
        output: '{{ note.output }}',
        steps: [
          { id: 'note', type: 'template', text },
          {
            id: 'post',
            type: 'http',
            method: 'POST',
            url: 'https://hooks.example.com/digest',
            body: { text: '{{ note.output }}' },
            on_error: 'continue',
          },
        ],
      },
      { name: 'short', inputs: {}, output: '{{ only.output }}', steps: [{ id: 'only', type: 'template', text: 'short' }] },
    ],
  };
}

/** The example file (examples/workflows.yaml), as `cli apply` sends its `workflows:` list. */
function exampleFile(): unknown[] {
  const parsed = parseWorkflowYaml(readFileSync(join(REPO_ROOT, 'examples/workflows.yaml'), 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return (parsed.value as { workflows: unknown[] }).workflows;
}

/**
 * Workflow deployments in the invocation service started in-process by its own bootstrap,
 * called over NATS as the gateway and the CLI call it, with the real catalog service (a built
 * process) answering the model checks: declarative apply into immutable versions, refusals
 * that write nothing, resolution by name and by pinned version, workspace isolation, and the
 * webhook secret in the row and the registry.
 */
describe('invocation service over NATS: workflow deployments', () => {
  const workspaceId = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let workflows: WorkflowDeploymentsService;
  let redis: Redis;
  let registry: WebhookRegistry;
  let database: Client;
  let first: AppliedWorkflowDeployment;

  const apply = (list: unknown[], workspace = workspaceId) =>
    service.send(InvocationPatterns.applyWorkflows, { workspace_id: workspace, workflows: list });
  const deploymentRows = async (workspace = workspaceId) =>
    (
      await database.query<{ name: string }>('SELECT name FROM invocation.workflow_deployments WHERE workspace_id = $1 ORDER BY name', [
        workspace,
      ])
    ).rows.map((row) => row.name);
  const versionCount = async () =>
    Number((await database.query<{ count: string }>('SELECT count(*) FROM invocation.workflow_versions')).rows[0].count);

  async function registeredTarget(id: string): Promise<WebhookTarget> {
    const target = await registry.get('workflow_deployment', id);
    if (!target) throw new Error(`no webhook target for workflow deployment ${id} in the registry`);
    return target;
  }

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    workflows = service.app.get(WorkflowDeploymentsService);
    redis = new Redis(process.env.REDIS_URL as string);
    registry = new WebhookRegistry(redis);
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await service?.stop();
    await catalog?.stop();
    await redis?.quit();
    await database?.end();
  });

  it('applies new deployments: version 1 of each variant, a whsec_ secret, and the webhook target in Redis', async () => {
    [first] = await apply([digest()]);
    expect(first).toEqual({
      deployment: 'daily-digest',
      workflow_deployment_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created: true,
      variants: [
        { name: 'default', variant_id: expect.any(String), version: 1, changed: true },
        { name: 'short', variant_id: expect.any(String), version: 1, changed: true },
      ],
    });
    // The dispatcher signs callbacks from the registry, so it is written before apply answers.
    expect(await redis.exists(`waggle:webhook-targets:workflow_deployment:${first.workflow_deployment_id}`)).toBe(1);
    const target = await registeredTarget(first.workflow_deployment_id);
    expect(target).toEqual({
      kind: 'workflow_deployment',
      id: first.workflow_deployment_id,
      workspace_id: workspaceId,
      secrets: [expect.objectContaining({ expires_at: null })],
    });
    expect(acceptsSecret(target, first.webhook_secret)).toBe(true);
    expect(JSON.stringify(target)).not.toContain(first.webhook_secret);
  });

  it('applies the example file (catalog model, loop, condition, http, knowledge_search)', async () => {
    const applied = await apply(exampleFile());
    expect(
      applied.map((deployment) => [deployment.deployment, deployment.created, deployment.variants.map((variant) => variant.version)]),
    ).toEqual([
      ['company-brief', true, [1]],
      ['order-status', true, [1]],
    ]);
    // Stored with the definition format's defaults applied (on_error, num_results, concurrency).
    const resolved = await workflows.resolve(workspaceId, 'company-brief', 'default');
    expect(resolved.definition.steps[0]).toEqual({
      id: 'search',
      type: 'web_search',
      query: '{{ topic }}',
      num_results: 5,
      on_error: 'fail',
    });
    expect(resolved.definition.steps[1]).toMatchObject({ id: 'pages', type: 'loop', max_iterations: 10, concurrency: 2 });
  });

  it('changes nothing when the same definitions are applied again', async () => {
    const before = await versionCount();
    const [again] = await apply([digest()]);
    expect(again).toEqual({ ...first, created: false, variants: first.variants.map((variant) => ({ ...variant, changed: false })) });
    expect(await versionCount()).toBe(before);
  });

  it('makes version 2 of a changed variant and repoints it; version 1 stays readable by versions() and pinned()', async () => {
    const { webhookSecret, ...v1 } = await workflows.resolve(workspaceId, 'daily-digest', 'default');
    expect({ ...v1, webhookSecret: webhookSecret() }).toEqual({
      deploymentId: first.workflow_deployment_id,
      deploymentName: 'daily-digest',
      variantId: first.variants[0].variant_id,
      variantName: 'default',
      versionId: expect.any(String),
      version: 1,
      definition: expect.objectContaining({ name: 'default', output: '{{ note.output }}' }),
      webhookSecret: first.webhook_secret,
    });

    const [changed] = await apply([digest('Fresh notes on {{ topic }}')]);
    expect(changed.variants).toEqual([
      { ...first.variants[0], version: 2, changed: true },
      { ...first.variants[1], version: 1, changed: false },
    ]);
    const v2 = await workflows.resolve(workspaceId, 'daily-digest', 'default');
    expect(v2.version).toBe(2);
    expect(v2.versionId).not.toBe(v1.versionId);
    expect(v2.definition.steps[0]).toEqual({ id: 'note', type: 'template', text: 'Fresh notes on {{ topic }}', on_error: 'fail' });

    const versions = await service.send(InvocationPatterns.listWorkflowVersions, {
      workspace_id: workspaceId,
      deployment: 'daily-digest',
      variant: 'default',
    });
    expect(versions.map(({ version, version_id, current }) => ({ version, version_id, current }))).toEqual([
      { version: 2, version_id: v2.versionId, current: true },
      { version: 1, version_id: v1.versionId, current: false },
    ]);
    expect(versions[1].definition).toEqual(v1.definition);

    // A run accepted on version 1 keeps it.
    const pinned = await workflows.pinned(workspaceId, v1.versionId);
    expect(pinned).toEqual(v1);
    expect(pinned.definition.steps[0]).toMatchObject({ text: 'Notes on {{ topic }}' });
  });

  it("lists the workspace's deployments with each variant's current version and inputs", async () => {
    const listed = await service.send(InvocationPatterns.listWorkflows, { workspace_id: workspaceId });
    expect(listed.map((deployment) => deployment.deployment)).toEqual(['company-brief', 'daily-digest', 'order-status']);
    expect(listed[1]).toEqual({
      deployment: 'daily-digest',
      workflow_deployment_id: first.workflow_deployment_id,
      created_at: expect.any(String),
      variants: [
        { name: 'default', variant_id: first.variants[0].variant_id, version: 2, inputs: { topic: { type: 'text', required: true } } },
        { name: 'short', variant_id: first.variants[1].variant_id, version: 1, inputs: {} },
      ],
    });
  });

  it.each([
    [
      'a reference to an unknown step',
      (d: DeploymentFixture) => (d.variants[0].steps[1].url = 'https://hooks.example.com/{{ nowhere.output }}'),
      'workflows[1].variants[0].steps[1].url',
      'refers to nowhere, which is neither an input nor a step',
    ],
    [
      'a reference to a later step',
      (d: DeploymentFixture) => (d.variants[0].steps[0].text = 'Before {{ post.output }}'),
      'workflows[1].variants[0].steps[0].text',
      'refers to step post, which does not run before this point',
    ],
    [
      'a repeated step id',
      (d: DeploymentFixture) => (d.variants[0].steps[1].id = 'note'),
      'workflows[1].variants[0].steps[1].id',
      'step id note is already used at workflows[1].variants[0].steps[0]',
    ],
    [
      'an unknown model',
      (d: DeploymentFixture) =>
        d.variants[0].steps.push({ id: 'ask', type: 'prompt', model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
      'workflows[1].variants[0].steps[2].model',
      'unknown model no-such-model',
    ],
    [
      'a model that is not a chat model',
      (d: DeploymentFixture) =>
        d.variants[0].steps.push({
          id: 'ask',
          type: 'prompt',
          model: 'text-embedding-3-small',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      'workflows[1].variants[0].steps[2].model',
      'unknown model text-embedding-3-small',
    ],
    [
      'fallbacks on a step naming a deployment (its variant sets its own)',
      (d: DeploymentFixture) =>
        d.variants[0].steps.push({ id: 'ask', type: 'prompt', deployment: 'brief', variant: 'default', fallbacks: ['claude-haiku-5-5'] }),
      'workflows[1].variants[0].steps[2].fallbacks',
      'goes with model, not deployment (the deployed variant sets its own)',
    ],
  ])(
    'refuses %s with its field path, writing nothing (also when only the second deployment is bad)',
    async (_name, breakIt, field, message) => {
      const bad = digest('Changed {{ topic }}');
      bad.deployment = 'second-deployment';
      breakIt(bad);
      const rowsBefore = await deploymentRows();
      const versionsBefore = await versionCount();
      // The first deployment is valid and would make a new version of daily-digest: it must not.
      const refused = await failure(apply([digest('A new version that must not be written {{ topic }}'), bad]));
      expect(refused).toBeInstanceOf(WaggleException);
      expect(refused).toMatchObject({
        code: 'validation_error',
        status: 422,
        message: `The workflow definitions are invalid: ${field}: ${message}`,
      });
      expect(refused.details).toEqual([{ field, messages: [message] }]);
      expect(await deploymentRows()).toEqual(rowsBefore);
      expect(await versionCount()).toBe(versionsBefore);
      expect((await workflows.resolve(workspaceId, 'daily-digest', 'default')).version).toBe(2);
    },
  );

  describe('fallbacks and response_format of prompt steps (decisions D41, D42)', () => {
    const FORMAT = {
      type: 'json_schema',
      name: 'brief',
      schema: { type: 'object', properties: { text: { type: 'string' } } },
      strict: true,
    };
    /** A deployment whose prompt step, inside a condition inside a loop, names `extra`. */
    const nested = (extra: Record<string, unknown>): DeploymentFixture => ({
      deployment: 'structured-digest',
      variants: [
        {
          name: 'default',
          inputs: { topic: { type: 'text', required: true } },
          output: '{{ pages.output }}',
          steps: [
            {
              id: 'pages',
              type: 'loop',
              over: '{{ topic }}',
              max_iterations: 3,
              steps: [
                {
                  id: 'check',
                  type: 'condition',
                  when: { all: [{ left: '{{ item }}', op: 'is_not_empty' }] },
                  then: [
                    {
                      id: 'ask',
                      type: 'prompt',
                      model: 'gpt-6-luna',
                      messages: [{ role: 'user', content: 'About {{ item }}' }],
                      ...extra,
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const field = 'workflows[1].variants[0].steps[0].steps[0].then[0].fallbacks';

    it('refuses, writing nothing, a nested step fallback that cannot answer to its schema or that the catalog does not know', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [
          { fallbacks: ['claude-haiku-5-5', 'deepseek-v4-pro'], response_format: FORMAT },
          `${field}[1]`,
          'Invalid fallback: deepseek-v4-pro cannot answer to a JSON schema natively, which this run needs',
        ],
        [{ fallbacks: ['no-such-model'] }, `${field}[0]`, 'Invalid fallback: no-such-model is not in the model catalog'],
      ];
      for (const [extra, at, message] of cases) {
        const rowsBefore = await deploymentRows();
        const versionsBefore = await versionCount();
        const refused = await failure(apply([digest('Must not be written {{ topic }}'), nested(extra)]));
        expect(refused).toMatchObject({ code: 'validation_error', status: 422, message, details: [{ field: at, messages: [message] }] });
        expect(await deploymentRows()).toEqual(rowsBefore);
        expect(await versionCount()).toBe(versionsBefore);
      }
    });

    it('stores good fallbacks and the response format in the version, and refuses response_format in params', async () => {
      const good = nested({ fallbacks: ['claude-haiku-5-5', 'deepseek-v4-pro'], params: { temperature: 0.1 } });
      const structured = nested({ fallbacks: ['claude-haiku-5-5'], response_format: FORMAT });
      await apply([good]);
      const [applied] = await apply([structured]);
      expect(applied.variants[0]).toMatchObject({ version: 2, changed: true });
      const versions = await workflows.versionsOf(workspaceId, 'structured-digest', 'default');
      const stepOf = (definition: Record<string, unknown>) =>
        (definition as { steps: Array<{ steps: Array<{ then: unknown[] }> }> }).steps[0].steps[0].then[0];
      expect(stepOf(versions[0].definition)).toMatchObject({ fallbacks: ['claude-haiku-5-5'], response_format: FORMAT });
      expect(stepOf(versions[1].definition)).toMatchObject({
        fallbacks: ['claude-haiku-5-5', 'deepseek-v4-pro'],
        params: { temperature: 0.1 },
      });

      const inParams = await failure(apply([nested({ params: { response_format: FORMAT } })]));
      expect(inParams).toMatchObject({
        code: 'validation_error',
        details: [
          { field: 'workflows[0].variants[0].steps[0].steps[0].then[0].params.response_format', messages: ['is not a known field'] },
        ],
      });
    });
  });

  it('refuses a repeated deployment and a payload that is not a list, naming the fields', async () => {
    const twice = await failure(apply([digest(), digest()]));
    expect(twice).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'workflows[1].deployment', messages: ['deployment daily-digest is already defined at workflows[0]'] }],
    });
    const notList = await failure(
      service.send(InvocationPatterns.applyWorkflows, { workspace_id: workspaceId, workflows: 'nope' } as never),
    );
    expect(notList).toMatchObject({ code: 'validation_error', status: 422, details: [{ field: 'workflows' }] });
  });

  it("keeps another workspace out: it can neither resolve nor pin this workspace's workflows, nor list them", async () => {
    const other = randomUUID();
    const current = await workflows.resolve(workspaceId, 'daily-digest', 'default');
    await expect(workflows.resolve(other, 'daily-digest', 'default')).rejects.toMatchObject({
      code: 'resource_not_found',
      message: 'Deployment not found: daily-digest',
    });
    await expect(workflows.pinned(other, current.versionId)).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(service.send(InvocationPatterns.listWorkflows, { workspace_id: other })).resolves.toEqual([]);
    await expect(
      service.send(InvocationPatterns.getWorkflowWebhookSecret, { workspace_id: other, deployment: 'daily-digest' }),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
    // The same name in another workspace is another deployment with its own secret.
    const [theirs] = await apply([digest()], other);
    expect(theirs.workflow_deployment_id).not.toBe(first.workflow_deployment_id);
    expect(theirs.webhook_secret).not.toBe(first.webhook_secret);
  });

  it('answers resource_not_found for an unknown deployment, variant or version', async () => {
    await expect(workflows.resolve(workspaceId, 'nope', 'default')).rejects.toMatchObject({
      code: 'resource_not_found',
      message: 'Deployment not found: nope',
    });
    await expect(workflows.resolve(workspaceId, 'daily-digest', 'nope')).rejects.toMatchObject({
      code: 'resource_not_found',
      message: 'Variant not found: nope',
    });
    await expect(workflows.pinned(workspaceId, randomUUID())).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(workflows.pinned(workspaceId, 'not-a-uuid')).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(
      service.send(InvocationPatterns.listWorkflowVersions, {
        workspace_id: workspaceId,
        deployment: 'daily-digest',
        variant: 'nope',
      }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
      message: 'Variant not found: nope',
    });
  });

  it('shows and rotates the webhook secret: the old one stays listed during the overlap, runs get the new one', async () => {
    const shown = await service.send(InvocationPatterns.getWorkflowWebhookSecret, {
      workspace_id: workspaceId,
      deployment: 'daily-digest',
    });
    expect(shown).toEqual({
      deployment: 'daily-digest',
      workflow_deployment_id: first.workflow_deployment_id,
      webhook_secret: first.webhook_secret,
      previous_secret_expires_at: null,
    });
    expect((await workflows.resolve(workspaceId, 'daily-digest', 'default')).webhookSecret()).toBe(first.webhook_secret);

    const askedAt = Date.now();
    const rotated = await service.send(InvocationPatterns.rotateWorkflowWebhookSecret, {
      workspace_id: workspaceId,
      deployment: 'daily-digest',
      overlap_seconds: 3600,
    });
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(first.webhook_secret);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThanOrEqual(askedAt + 3_600_000 - 1_000);
    const during = await registeredTarget(first.workflow_deployment_id);
    expect(during.secrets.map((secret) => secret.expires_at)).toEqual([null, rotated.previous_secret_expires_at]);
    expect(acceptsSecret(during, rotated.webhook_secret)).toBe(true);
    expect(acceptsSecret(during, first.webhook_secret)).toBe(true);
    // This replica rotated it: the next async run answers the new secret at once.
    expect((await workflows.resolve(workspaceId, 'daily-digest', 'default')).webhookSecret()).toBe(rotated.webhook_secret);

    const final = await service.send(InvocationPatterns.rotateWorkflowWebhookSecret, {
      workspace_id: workspaceId,
      deployment: 'daily-digest',
      overlap_seconds: 0,
    });
    expect(final.previous_secret_expires_at).toBeNull();
    const after = await registeredTarget(first.workflow_deployment_id);
    expect(after.secrets).toHaveLength(1);
    expect(acceptsSecret(after, final.webhook_secret)).toBe(true);
    expect(acceptsSecret(after, rotated.webhook_secret)).toBe(false);
    // Apply answers the current secret; the deployment keeps it across applies.
    const [reapplied] = await apply([digest('Fresh notes on {{ topic }}')]);
    expect(reapplied.webhook_secret).toBe(final.webhook_secret);
  });

  it('answers resolve from memory, and every replica forgets it when an apply or a rotation changes the workspace', async () => {
    // A second replica's cache: its own NATS connection, the same database.
    const client = new NatsRpcClient(loadConfig(BaseEnv), 'workflow-resolution-replica');
    await client.connect();
    const replica = new WorkflowResolutionCache(service.app.get(WorkflowDeploymentsRepository), service.app.get(SecretSealer), client);
    replica.onApplicationBootstrap();
    await client.connection()?.flush();
    const current = () => replica.resolve(workspaceId, 'daily-digest', 'default');
    try {
      const before = await current();
      // The same answer again, not another query.
      expect(await current()).toBe(before);

      await apply([digest('Third notes on {{ topic }}')]);
      await expectEventually(async () => expect((await current()).version).toBe(before.version + 1));
      expect((await current()).definition.steps[0]).toMatchObject({ text: 'Third notes on {{ topic }}' });

      const secret = (await current()).webhookSecret();
      const rotated = await service.send(InvocationPatterns.rotateWorkflowWebhookSecret, {
        workspace_id: workspaceId,
        deployment: 'daily-digest',
        overlap_seconds: 0,
      });
      expect(rotated.webhook_secret).not.toBe(secret);
      await expectEventually(async () => expect((await current()).webhookSecret()).toBe(rotated.webhook_secret));
    } finally {
      replica.onApplicationShutdown();
      await client.close();
    }
  });
});
