import type { KnowledgeBaseRecord } from '@waggle/contracts';
import { ERROR_MESSAGES, type ErrorMessageId } from '@waggle/errors';
import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

interface Workspace {
  id: string;
  key: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Errors raised with a specific message in each service reach a Spanish workspace in
 * Spanish, and an English one byte for byte as before: the services send the message's id
 * and parameters, and the gateway renders them in the workspace's language.
 */
describe("errors in the workspace's language, from every service", () => {
  const apps: AppProcess[] = [];
  let gateway: string;
  let spanish: Workspace;
  let english: Workspace;
  let spanishKnowledgeBase: KnowledgeBaseRecord;
  let englishKnowledgeBase: KnowledgeBaseRecord;

  async function call(who: Workspace, method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn', KB_EMBEDDING_MODEL: 'text-embedding-3-small' };
    for (const app of ['catalog', 'invocation', 'agent', 'knowledge-base'] as const) apps.push(spawnApp(app, await freePort(), env));
    apps.push(
      spawnApp('asset', await freePort(), {
        ...env,
        ASSET_STORAGE_DRIVER: 'filesystem',
        ASSET_STORAGE_DIR: mkdtempSync(join(tmpdir(), 'waggle-localized-errors-')),
      }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), env);
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    const workspace = async (name: string, extra: string[] = []) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name, ...extra]);
      return { id: made.workspace_id, key: made.api_key };
    };
    [spanish, english] = [await workspace('e2e errores ES', ['--language', 'es']), await workspace('e2e errors EN')];
    const knowledgeBase = async (who: Workspace) => {
      const answer = await call(who, 'POST', `/v1/public/workspaces/${who.id}/knowledge_bases`, { knowledge_base: { name: 'Docs' } });
      expect(answer.status).toBe(200);
      return answer.body.knowledge_base as KnowledgeBaseRecord;
    };
    [spanishKnowledgeBase, englishKnowledgeBase] = [await knowledgeBase(spanish), await knowledgeBase(english)];
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  const unknownRun = randomUUID();
  const unknownAsset = randomUUID();
  /** [who raises it, the request, the expected answer's status, code, message id and its parameters] */
  const cases: Array<
    [
      string,
      (who: Workspace, kb: KnowledgeBaseRecord) => [string, string, unknown?],
      number,
      string,
      ErrorMessageId,
      Record<string, string>,
    ]
  > = [
    [
      'the gateway (an invalid search type)',
      (who, kb) => [
        'POST',
        `/v1/public/workspaces/${who.id}/knowledge_bases/${kb.id}/search`,
        { search_query: 'q', search_type: 'x', search_chunk_limit: 5, search_score_threshold: 0 },
      ],
      422,
      'validation_error',
      'invalid_search_type',
      { value: '"x"', allowed: 'hybrid, vector, full_text' },
    ],
    [
      'invocation (an unknown workflow run)',
      () => ['GET', `/v1/workflow_runs/${unknownRun}`],
      404,
      'not_found',
      'workflow_run_not_found',
      {},
    ],
    [
      'invocation (an unknown workflow deployment)',
      () => ['GET', '/v1/private/workflows/nowhere/variants/default/versions'],
      404,
      'resource_not_found',
      'deployment_not_found',
      { name: 'nowhere' },
    ],
    [
      'agent (a model the catalog does not have)',
      (who) => [
        'POST',
        `/v1/public/workspaces/${who.id}/agents`,
        { agent: { name: 'Soporte', llm_model: 'no-such-model', model_type: 'llm' } },
      ],
      422,
      'validation_error',
      'llm_model_not_in_catalog',
      { model: 'no-such-model' },
    ],
    [
      'knowledge-base (an unknown embedding model)',
      () => ['PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: 'no-such-embedding' }],
      422,
      'validation_error',
      'embedding_model_not_in_catalog',
      { model: 'no-such-embedding' },
    ],
    [
      'knowledge-base (asset_id and url together)',
      (_, kb) => ['POST', `/v1/private/knowledge_bases/${kb.id}/items`, { url: 'https://docs.example.invalid/a', asset_id: unknownAsset }],
      422,
      'validation_error',
      'asset_or_url',
      {},
    ],
    [
      'asset (an unknown asset, through the knowledge base)',
      (_, kb) => ['POST', `/v1/private/knowledge_bases/${kb.id}/items`, { asset_id: unknownAsset }],
      422,
      'resource_not_found',
      'asset_not_found',
      {},
    ],
  ];

  const render = (id: ErrorMessageId, locale: 'en' | 'es', params: Record<string, string>) =>
    ERROR_MESSAGES[id][locale].replace(/%\{(\w+)\}/g, (_, name: string) => params[name]);

  it.each(cases)(
    '%s answers a Spanish workspace in Spanish and an English one in English',
    async (_, request, status, code, id, params) => {
      const [method, path, body] = request(spanish, spanishKnowledgeBase);
      const inSpanish = await call(spanish, method, path, body);
      expect(inSpanish).toMatchObject({ status, body: { error_code: code, message: render(id, 'es', params) } });
      expect(inSpanish.body.error).toBe(inSpanish.body.message);

      const [englishMethod, englishPath, englishBody] = request(english, englishKnowledgeBase);
      const inEnglish = await call(english, englishMethod, englishPath, englishBody);
      expect(inEnglish).toMatchObject({ status, body: { error_code: code, message: render(id, 'en', params) } });
      expect(inEnglish.body.message).not.toBe(inSpanish.body.message);
    },
  );

  it("gives a URL policy's refusal in the workspace's language, the reason too", async () => {
    const body = { deployment: 'anywhere', variant: 'default', async: { enabled: true, callback_url: 'https://127.0.0.1/hooks' } };
    const inSpanish = await call(spanish, 'POST', '/v1/workflow/invoke', body);
    expect(inSpanish).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error', message: 'URL rechazada: el campo callback_url apunta a una dirección de bucle local' },
    });
    const inEnglish = await call(english, 'POST', '/v1/workflow/invoke', body);
    expect(inEnglish).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error', message: 'callback_url points to a loopback address' },
    });
  });

  it("gives a body's validation failures field by field in the workspace's language (class-validator rules, details[].messages)", async () => {
    const body = { deployment: '', variant: 'default', extra: 1 };
    const messagesOf = (answer: Answer) =>
      Object.fromEntries(
        (answer.body.details as Array<{ field: string; messages: string[] }>).map(({ field, messages }) => [field, messages]),
      );
    const inEnglish = await call(english, 'POST', '/v1/workflow/invoke', body);
    expect(inEnglish).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
    expect(messagesOf(inEnglish)).toEqual({
      extra: ['property extra should not exist'],
      deployment: ['deployment must be longer than or equal to 1 characters'],
    });
    const inSpanish = await call(spanish, 'POST', '/v1/workflow/invoke', body);
    expect(inSpanish).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
    expect(messagesOf(inSpanish)).toEqual({
      extra: ['la propiedad extra no está permitida'],
      deployment: ['deployment debe tener al menos 1 caracteres'],
    });
  });

  it("gives an invalid workflow definition's problem in the workspace's language, details in English as before", async () => {
    const steps = [
      { id: 'a', type: 'template', text: '{{ b.output }}' },
      { id: 'b', type: 'template', text: 'x' },
    ];
    const workflows = [{ deployment: 'broken', variants: [{ name: 'default', inputs: {}, output: 'x', steps }] }];
    const field = 'workflows[0].variants[0].steps[0].text';
    const englishReason = 'refers to step b, which does not run before this point';
    const inSpanish = await call(spanish, 'POST', '/v1/private/workflows/apply', { workflows });
    expect(inSpanish).toMatchObject({
      status: 422,
      body: {
        error_code: 'validation_error',
        message: render('invalid_workflow_definitions', 'es', {
          field,
          reason: 'hace referencia al paso b, que no se ejecuta antes de este punto',
        }),
        details: [{ field, messages: [englishReason] }],
      },
    });
    const inEnglish = await call(english, 'POST', '/v1/private/workflows/apply', { workflows });
    expect(inEnglish).toMatchObject({
      status: 422,
      body: {
        message: `The workflow definitions are invalid: ${field}: ${englishReason}`,
        details: [{ field, messages: [englishReason] }],
      },
    });
    expect(inEnglish.body.details).toEqual(inSpanish.body.details);
  });

  it("gives a failed workflow run's reason in the workspace's language, its stored English text as before", async () => {
    const capped = async (language: string[]) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>([
        'workspace',
        'create',
        '--name',
        'e2e errores flujo',
        '--plan',
        'enterprise',
        ...language,
      ]);
      await cliJson(['workspace', 'set-limits', made.workspace_id, '--workflow-step-limit', '1']);
      const who = { id: made.workspace_id, key: made.api_key };
      const template = (id: string) => ({ id, type: 'template', text: id });
      const workflows = [
        { deployment: 'two-steps', variants: [{ name: 'default', inputs: {}, output: 'x', steps: [template('a'), template('b')] }] },
      ];
      expect((await call(who, 'POST', '/v1/private/workflows/apply', { workflows })).status).toBe(200);
      return who;
    };
    const englishReason = "The run would execute more than the plan's 1 steps";
    const spanishCapped = await capped(['--language', 'es']);
    const inSpanish = await call(spanishCapped, 'POST', '/v1/workflow/invoke', { deployment: 'two-steps', variant: 'default' });
    expect(inSpanish).toMatchObject({
      status: 402,
      body: {
        error_code: 'workflow_step_limit_reached',
        message: 'La ejecución del flujo de trabajo falló: La ejecución superaría los 1 pasos de su plan',
      },
    });
    const inEnglish = await call(await capped([]), 'POST', '/v1/workflow/invoke', { deployment: 'two-steps', variant: 'default' });
    expect(inEnglish).toMatchObject({ status: 402, body: { error_code: 'workflow_step_limit_reached', message: englishReason } });
    // The run view keeps the English text.
    const view = await call(spanishCapped, 'GET', `/v1/workflow_runs/${String(inSpanish.body.request_id)}`);
    expect(view.body.workflow_run).toMatchObject({ run_status: 'failed', error_message: englishReason });
  });
});
