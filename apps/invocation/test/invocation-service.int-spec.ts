import {
  HealthPatterns,
  InvocationPatterns,
  type AppliedDeployment,
  type ApplyPromptsRequest,
  type PromptDeploymentSpec,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually, startServiceUnderTest, type ServiceUnderTest, failure } from '@waggle/testing';
import { acceptsSecret, WebhookRegistry } from '@waggle/webhooks';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { bootstrap } from '../src/bootstrap';

/** A deployment as `cli apply` sends it from a prompts file. */
function supportDesk(greeting = 'You answer for {{ company }}.'): PromptDeploymentSpec {
  return {
    deployment: 'support-desk',
    variants: [
      {
        name: 'default',
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: greeting },
          { role: 'user', content: '{{ question }}' },
        ],
        params: { temperature: 0.2 },
      },
      { name: 'terse', model: 'claude-3-5-haiku', messages: [{ role: 'user', content: 'Briefly: {{ question }}' }] },
    ],
  };
}

/**
 * The invocation service started in-process by its own bootstrap and called over NATS as
 * the gateway and the CLI call it, without the gateway: declarative apply with immutable
 * versions, listing, webhook secrets, and errors as the catalog's wire envelope.
 */
describe('invocation service over NATS', () => {
  const workspaceId = randomUUID();
  let service: ServiceUnderTest;
  let redis: Redis;
  let registry: WebhookRegistry;
  let first: AppliedDeployment;

  const apply = (prompts: PromptDeploymentSpec[], workspace = workspaceId) =>
    service.send(InvocationPatterns.applyPrompts, { workspace_id: workspace, prompts });
  const variantOf = (deployment: AppliedDeployment, name: string) => deployment.variants.find((variant) => variant.name === name);

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    redis = new Redis(process.env.REDIS_URL as string);
    registry = new WebhookRegistry(redis);
  });

  afterAll(async () => {
    await service?.stop();
    await redis?.quit();
  });

  it('answers invocation.health.ping', async () => {
    // Readiness checks are live (1 s each): under load one can miss right after start.
    await expectEventually(async () =>
      expect(await service.send(HealthPatterns.invocation, {})).toEqual({
        service: 'invocation',
        ready: true,
        uptime_s: expect.any(Number),
      }),
    );
  });

  it('applies a new deployment: version 1 of each variant, a whsec_ secret, and its webhook target in Redis', async () => {
    [first] = await apply([supportDesk()]);
    expect(first).toEqual({
      deployment: 'support-desk',
      prompt_endpoint_id: expect.any(String),
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created: true,
      variants: [
        { name: 'default', variant_id: expect.any(String), version: 1, changed: true },
        { name: 'terse', variant_id: expect.any(String), version: 1, changed: true },
      ],
    });
    // Triggers are authenticated from the registry, so it is written before apply answers.
    const target = await registry.get('prompt_deployment', first.prompt_endpoint_id);
    expect(target).toMatchObject({ kind: 'prompt_deployment', id: first.prompt_endpoint_id, workspace_id: workspaceId });
    expect(acceptsSecret(target as NonNullable<typeof target>, first.webhook_secret)).toBe(true);
    expect(JSON.stringify(target)).not.toContain(first.webhook_secret);
  });

  it('changes nothing when the same definition is applied again', async () => {
    const [again] = await apply([supportDesk()]);
    expect(again).toEqual({ ...first, created: false, variants: first.variants.map((variant) => ({ ...variant, changed: false })) });
    const versions = await service.send(InvocationPatterns.listPromptVersions, {
      workspace_id: workspaceId,
      deployment: 'support-desk',
      variant: 'default',
    });
    expect(versions.map((version) => version.version)).toEqual([1]);
  });

  it('makes a new immutable version of a changed variant; the old one stays listed, no longer current', async () => {
    const [changed] = await apply([supportDesk('You answer for {{ company }}, politely, in {{ language }}.')]);
    expect(changed.prompt_endpoint_id).toBe(first.prompt_endpoint_id);
    expect(variantOf(changed, 'default')).toEqual({ ...variantOf(first, 'default'), version: 2, changed: true });
    expect(variantOf(changed, 'terse')).toEqual({ ...variantOf(first, 'terse'), version: 1, changed: false });

    const versions = await service.send(InvocationPatterns.listPromptVersions, {
      workspace_id: workspaceId,
      deployment: 'support-desk',
      variant: 'default',
    });
    expect(versions.map(({ version, current, variables }) => ({ version, current, variables }))).toEqual([
      { version: 2, current: true, variables: ['company', 'language', 'question'] },
      { version: 1, current: false, variables: ['company', 'question'] },
    ]);
    expect(versions[1]).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You answer for {{ company }}.' },
        { role: 'user', content: '{{ question }}' },
      ],
      params: { temperature: 0.2 },
    });
    expect(versions[0].version_id).not.toBe(versions[1].version_id);
  });

  it("lists the workspace's deployments with each variant's current version, and no other workspace's", async () => {
    await apply(
      [{ deployment: 'elsewhere', variants: [{ name: 'default', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }] }],
      randomUUID(),
    );
    const listed = await service.send(InvocationPatterns.listPrompts, { workspace_id: workspaceId });
    expect(listed).toEqual([
      {
        deployment: 'support-desk',
        prompt_endpoint_id: first.prompt_endpoint_id,
        created_at: expect.any(String),
        variants: [
          {
            name: 'default',
            variant_id: variantOf(first, 'default')?.variant_id,
            version: 2,
            model: 'gpt-4o-mini',
            variables: ['company', 'language', 'question'],
          },
          {
            name: 'terse',
            variant_id: variantOf(first, 'terse')?.variant_id,
            version: 1,
            model: 'claude-3-5-haiku',
            variables: ['question'],
          },
        ],
      },
    ]);
  });

  it('shows and rotates the webhook secret; during the overlap both secrets are in the target', async () => {
    const shown = await service.send(InvocationPatterns.getWebhookSecret, { workspace_id: workspaceId, deployment: 'support-desk' });
    expect(shown).toEqual({
      deployment: 'support-desk',
      prompt_endpoint_id: first.prompt_endpoint_id,
      webhook_secret: first.webhook_secret,
      previous_secret_expires_at: null,
    });

    const askedAt = Date.now();
    const rotated = await service.send(InvocationPatterns.rotateWebhookSecret, {
      workspace_id: workspaceId,
      deployment: 'support-desk',
      overlap_seconds: 3600,
    });
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(first.webhook_secret);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThanOrEqual(askedAt + 3_600_000 - 1_000);
    await expect(
      service.send(InvocationPatterns.getWebhookSecret, { workspace_id: workspaceId, deployment: 'support-desk' }),
    ).resolves.toEqual(rotated);
    const target = await registry.get('prompt_deployment', first.prompt_endpoint_id);
    expect(acceptsSecret(target as NonNullable<typeof target>, rotated.webhook_secret)).toBe(true);
    expect(acceptsSecret(target as NonNullable<typeof target>, first.webhook_secret)).toBe(true);

    // Without an overlap the old secret stops at once.
    const final = await service.send(InvocationPatterns.rotateWebhookSecret, {
      workspace_id: workspaceId,
      deployment: 'support-desk',
      overlap_seconds: 0,
    });
    expect(final.previous_secret_expires_at).toBeNull();
    const after = await registry.get('prompt_deployment', first.prompt_endpoint_id);
    expect(acceptsSecret(after as NonNullable<typeof after>, final.webhook_secret)).toBe(true);
    expect(acceptsSecret(after as NonNullable<typeof after>, rotated.webhook_secret)).toBe(false);
  });

  it('answers resource_not_found for versions or secrets of what does not exist', async () => {
    const unknownVariant = await failure(
      service.send(InvocationPatterns.listPromptVersions, { workspace_id: workspaceId, deployment: 'support-desk', variant: 'nope' }),
    );
    expect(unknownVariant).toBeInstanceOf(WaggleException);
    expect(unknownVariant).toMatchObject({ code: 'resource_not_found', status: 404, message: 'Variant not found: support-desk/nope' });
    // Another workspace's deployment is as unknown as a missing one.
    await expect(
      service.send(InvocationPatterns.listPromptVersions, { workspace_id: randomUUID(), deployment: 'support-desk', variant: 'default' }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    await expect(
      service.send(InvocationPatterns.getWebhookSecret, { workspace_id: workspaceId, deployment: 'nope' }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
      message: 'Deployment not found: nope',
    });
    await expect(
      service.send(InvocationPatterns.rotateWebhookSecret, { workspace_id: workspaceId, deployment: 'nope' }),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  it('refuses bad apply payloads with the validation envelope, naming the fields, and writes nothing', async () => {
    const missing = await failure(service.send(InvocationPatterns.applyPrompts, { workspace_id: workspaceId } as ApplyPromptsRequest));
    expect(missing).toMatchObject({
      code: 'missing_required_field',
      status: 422,
      details: [{ field: 'prompts', messages: expect.any(Array) }],
    });

    const invalid = await failure(
      service.send(InvocationPatterns.applyPrompts, {
        workspace_id: 'not-a-uuid',
        prompts: [{ deployment: 'bad name!', variants: [{ name: 'default', model: 'm', messages: [{ role: 'robot', content: 'x' }] }] }],
      } as unknown as ApplyPromptsRequest),
    );
    expect(invalid).toMatchObject({ code: 'validation_error', status: 422 });
    expect((invalid.details as Array<{ field: string }>).map((detail) => detail.field).sort()).toEqual([
      'prompts.0.deployment',
      'prompts.0.variants.0.messages.0.role',
      'workspace_id',
    ]);

    const twice = await failure(apply([supportDesk(), { ...supportDesk(), variants: supportDesk().variants.slice(0, 1) }]));
    expect(twice).toMatchObject({ code: 'validation_error', message: 'Deployment defined twice: support-desk' });
    // Nothing of a refused apply was written.
    const versions = await service.send(InvocationPatterns.listPromptVersions, {
      workspace_id: workspaceId,
      deployment: 'support-desk',
      variant: 'default',
    });
    expect(versions.map((version) => version.version)).toEqual([2, 1]);
  });
});
