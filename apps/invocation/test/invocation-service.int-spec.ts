import {
  CatalogPatterns,
  HealthPatterns,
  InvocationPatterns,
  type AppliedDeployment,
  type ApplyPromptsRequest,
  type PromptDeploymentSpec,
  type PromptVariantSpec,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import {
  expectEventually,
  freePort,
  spawnApp,
  startServiceUnderTest,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
  failure,
} from '@waggle/testing';
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

/** The response format of the fallback tests. */
const REPLY_FORMAT = {
  type: 'json_schema' as const,
  name: 'reply',
  schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  strict: true,
};

/**
 * The invocation service started in-process by its own bootstrap and called over NATS as
 * the gateway and the CLI call it, without the gateway, with the real catalog service (a
 * built process) answering the fallback checks: declarative apply with immutable versions,
 * listing, webhook secrets, and errors as the catalog's wire envelope.
 */
describe('invocation service over NATS', () => {
  const workspaceId = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let redis: Redis;
  let registry: WebhookRegistry;
  let first: AppliedDeployment;

  const apply = (prompts: PromptDeploymentSpec[], workspace = workspaceId) =>
    service.send(InvocationPatterns.applyPrompts, { workspace_id: workspace, prompts });
  const variantOf = (deployment: AppliedDeployment, name: string) => deployment.variants.find((variant) => variant.name === name);

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    redis = new Redis(process.env.REDIS_URL as string);
    registry = new WebhookRegistry(redis);
  });

  afterAll(async () => {
    await service?.stop();
    await catalog?.stop();
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
            split: null,
          },
          {
            name: 'terse',
            variant_id: variantOf(first, 'terse')?.variant_id,
            version: 1,
            model: 'claude-3-5-haiku',
            variables: ['question'],
            split: null,
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

  describe('fallbacks and response_format of a variant (decisions D41, D42)', () => {
    /** A deployment of one plain variant and one `vision` variant that sends images, with `extra` on the vision one. */
    const desk = (extra: Partial<PromptVariantSpec> = {}, name = 'fallback-desk'): PromptDeploymentSpec => ({
      deployment: name,
      variants: [
        { name: 'plain', model: 'gpt-6-luna', messages: [{ role: 'user', content: '{{ question }}' }] },
        {
          name: 'vision',
          model: 'gpt-6-luna',
          image_inputs: ['photo'],
          messages: [{ role: 'user', content: 'Describe {{ photo }}' }],
          ...extra,
        },
      ],
    });
    const versionsOf = (variant: string, deployment = 'fallback-desk') =>
      service.send(InvocationPatterns.listPromptVersions, { workspace_id: workspaceId, deployment, variant });

    it('relies on catalog models with these capabilities', async () => {
      const flags = async (model: string) => {
        const route = await service.send(CatalogPatterns.getModelRoute, { model_id: model });
        return { status: route.status, vision: route.is_vision, json_schema: route.is_json_schema };
      };
      expect(await flags('claude-haiku-5-5')).toEqual({ status: 'active', vision: true, json_schema: true });
      expect(await flags('codestral-latest')).toEqual({ status: 'active', vision: false, json_schema: true });
      expect(await flags('together/meta-llama/Llama-4-Scout-17B-16E-Instruct')).toEqual({
        status: 'active',
        vision: true,
        json_schema: false,
      });
    });

    it('refuses, before writing anything, a fallback that cannot see the images, cannot answer to the schema, or is unknown', async () => {
      const cases: Array<[Partial<PromptVariantSpec>, string, string]> = [
        [
          { fallbacks: ['claude-haiku-5-5', 'codestral-latest'] },
          'fallbacks[1]',
          'Invalid fallback: codestral-latest cannot see images, which this run needs',
        ],
        [
          { fallbacks: ['together/meta-llama/Llama-4-Scout-17B-16E-Instruct'], response_format: REPLY_FORMAT },
          'fallbacks[0]',
          'Invalid fallback: together/meta-llama/Llama-4-Scout-17B-16E-Instruct cannot answer to a JSON schema natively, which this run needs',
        ],
        [{ fallbacks: ['no-such-model'] }, 'fallbacks[0]', 'Invalid fallback: no-such-model is not in the model catalog'],
        [{ fallbacks: ['gpt-6-luna'] }, 'fallbacks[0]', 'Invalid fallback: gpt-6-luna is already the model or an earlier fallback'],
        [{ fallbacks: ['gpt-4o-mini'] }, 'fallbacks[0]', 'Invalid fallback: gpt-4o-mini is deprecated or not a chat model'],
      ];
      for (const [extra, field, message] of cases) {
        const refused = await failure(apply([supportDesk(), desk(extra)]));
        expect(refused).toMatchObject({
          code: 'validation_error',
          status: 422,
          message,
          details: [{ field: `prompts[1].variants[1].${field}`, messages: [message] }],
        });
      }
      // A text-only variant takes a fallback without vision.
      const textOnly = await failure(
        apply([{ ...desk(), variants: [{ ...desk().variants[0], fallbacks: ['codestral-latest', 'no-such-model'] }] }]),
      );
      expect(textOnly).toMatchObject({
        code: 'validation_error',
        details: [
          { field: 'prompts[0].variants[0].fallbacks[1]', messages: ['Invalid fallback: no-such-model is not in the model catalog'] },
        ],
      });
      await expect(versionsOf('vision')).rejects.toMatchObject({ code: 'resource_not_found' });
    });

    it('stores good fallbacks and the response format, lists them with each version, and changes nothing when applied again', async () => {
      const good = desk({ fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'], response_format: REPLY_FORMAT });
      const [applied] = await apply([good]);
      expect(applied.variants.map(({ name, version, changed }) => ({ name, version, changed }))).toEqual([
        { name: 'plain', version: 1, changed: true },
        { name: 'vision', version: 1, changed: true },
      ]);
      const [again] = await apply([good]);
      expect(again.variants.every((variant) => !variant.changed)).toBe(true);
      expect(await versionsOf('vision')).toEqual([
        expect.objectContaining({
          version: 1,
          params: {},
          image_inputs: ['photo'],
          fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'],
          response_format: REPLY_FORMAT,
          current: true,
        }),
      ]);
      expect(await versionsOf('plain')).toEqual([expect.objectContaining({ version: 1, fallbacks: [], response_format: null })]);

      // Dropping them is a change: a new version without them, the old one still listed.
      const [dropped] = await apply([desk()]);
      expect(variantOf(dropped, 'vision')).toMatchObject({ version: 2, changed: true });
      expect(variantOf(dropped, 'plain')).toMatchObject({ version: 1, changed: false });
      expect(
        (await versionsOf('vision')).map(({ version, fallbacks, response_format }) => ({ version, fallbacks, response_format })),
      ).toEqual([
        { version: 2, fallbacks: [], response_format: null },
        { version: 1, fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'], response_format: REPLY_FORMAT },
      ]);
    });

    it('refuses response_format inside params: it lives beside model', async () => {
      const refused = await failure(
        apply([desk({ params: { response_format: REPLY_FORMAT } as PromptVariantSpec['params'] }, 'params-desk')]),
      );
      expect(refused).toMatchObject({
        code: 'validation_error',
        details: [
          {
            field: 'prompts.0.variants.1.params.response_format',
            messages: [{ detail: 'validation_unknown_property', params: { property: 'response_format' } }],
          },
        ],
      });
    });
  });
});
