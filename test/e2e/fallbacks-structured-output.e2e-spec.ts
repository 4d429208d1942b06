import {
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Model fallbacks (D41) and structured output (D42) through the gateway, against the fake
 * provider speaking the OpenAI-compatible and Anthropic protocols: prompts, a workflow whose
 * condition reads a field of a structured step, and an agent with both.
 */
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const FORMAT = JSON.stringify({ type: 'json_schema', name: 'place', schema: SCHEMA, strict: true });

const DEFINITIONS = `
prompts:
  - deployment: resilient
    variants:
      - name: default
        model: fb-primary
        fallbacks: [claude-fb-second, fb-third]
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: place
    variants:
      - name: native
        model: fb-json-native
        response_format: ${FORMAT}
        messages:
          - { role: user, content: "Where? {{ question }}" }
      - name: anthropic
        model: claude-fb-json
        response_format: ${FORMAT}
        messages:
          - { role: user, content: "Where? {{ question }}" }
      - name: instructed
        model: fb-json-instructed
        response_format: ${FORMAT}
        messages:
          - { role: user, content: "Where? {{ question }}" }
workflows:
  - deployment: triage
    variants:
      - name: default
        output: "{{ route.output }}"
        steps:
          - id: extract
            type: prompt
            model: fb-json-native
            fallbacks: [claude-fb-json]
            response_format: ${FORMAT}
            messages: [ { role: user, content: "Extract the place" } ]
          - id: route
            type: condition
            when: { all: [ { left: "{{ extract.output.population }}", op: gt, right: 1000000 } ] }
            then:
              - { id: big, type: template, text: "big city {{ extract.output.city }}" }
            else:
              - { id: small, type: template, text: "small town {{ extract.output.city }}" }
`;

describe('fallbacks and structured output through the gateway', () => {
  const fake = new FakeProviderServer();
  const apps: AppProcess[] = [];
  let gateway: string;
  let key: string;
  let workspaceId: string;

  const post = (path: string, body: unknown) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as T;
  const invokePrompt = (variant: string, deployment = 'resilient', extra: Record<string, unknown> = {}) =>
    post('/v1/invoke', { deployment, variant, inputs: { question: 'Hello' }, ...extra });
  const eventsOf = async (response: Response) =>
    (await collectSse(response)).filter((event) => event !== '[DONE]') as Array<Record<string, unknown>>;
  const modelsCalled = (from: number) => fake.requests.slice(from).map((record) => record.model);
  /** The run's ledger data once its terminal record has landed (the ledger is written beside the run, not in front of it). */
  const ledgerData = (requestId: string) =>
    expectEventually(async () => {
      const record = await get<{ status: string; data: Record<string, unknown> | null }>(`/v1/public/requests/${requestId}`);
      expect(record.status).toBe('completed');
      return record.data;
    });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      ANTHROPIC_BASE_URL: `${fakeUrl}/v1`,
      ANTHROPIC_API_KEY: 'fake-anthropic-key',
      PROVIDER_MAX_RETRIES: '0',
      // The hanging model never answers: this is how long a run waits for it before its fallback. Far
      // above what the fake takes to start an answer on loopback, so no other test can switch by chance.
      PROVIDER_FIRST_BYTE_TIMEOUT_MS: '5000',
    };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('gateway', await freePort(), env),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[3].baseUrl;
    const anthropic = { provider: 'anthropic', maker: 'anthropic' };
    await loadCatalogWithFakeModels('2099.24.1', [
      fakeModel('fb-primary', { tool_calling: true }),
      fakeModel('claude-fb-second', { ...anthropic, tool_calling: true }),
      fakeModel('fb-third', { tool_calling: true }),
      fakeModel('fb-json-native', { json_schema: true, tool_calling: true }),
      fakeModel('claude-fb-json', { ...anthropic, json_schema: true, tool_calling: true }),
      fakeModel('fb-json-instructed', { json_schema: false }),
      fakeModel('fb-plain', { json_schema: false, tool_calling: false, vision: false }),
      fakeModel('fb-seeing', { vision: true }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e fallbacks']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-fallbacks-')), 'definitions.yaml');
    writeFileSync(file, DEFINITIONS);
    await cliJson(['apply', '-f', file, '--workspace', workspaceId]);
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  afterEach(() => fake.reset());

  describe('fallbacks', () => {
    const failures = [
      ['a 429', { error: { status: 429 } }, 'rate_limited'],
      ['a 500', { error: { status: 500 } }, 'provider_unavailable'],
      ['a time-out before the first byte', { hang: true }, 'timeout'],
    ] as const;

    it.each(failures)(
      'answers from the next model after %s, not streaming, and the ledger lists both attempts',
      async (_, behaviour, code) => {
        fake.setModel('fb-primary', behaviour);
        fake.setModel('claude-fb-second', { response: 'Answered by the fallback' });
        const from = fake.requests.length;
        const response = await invokePrompt('default');
        expect(response.status).toBe(200);
        const body = (await response.json()) as { request_id: string; model: string; response: string };
        expect(body).toMatchObject({ model: 'claude-fb-second', response: 'Answered by the fallback' });
        expect(modelsCalled(from)).toEqual(['fb-primary', 'claude-fb-second']);
        const data = await ledgerData(body.request_id);
        expect(data?.attempts).toEqual([
          expect.objectContaining({ model: 'fb-primary', error_code: code, duration_ms: expect.any(Number) }),
          expect.objectContaining({ model: 'claude-fb-second', error_code: null }),
        ]);
      },
    );

    it.each(failures)('streams from the next model after %s, every fragment naming it', async (_, behaviour, code) => {
      fake.setModel('fb-primary', behaviour);
      fake.setModel('claude-fb-second', { response: 'one two three' });
      const response = await invokePrompt('default', 'resilient', { streaming: true });
      expect(response.status).toBe(200);
      const events = await eventsOf(response);
      const fragments = events.filter((event) => event.type === 'response');
      expect(fragments.map((event) => event.response).join('')).toBe('one two three');
      expect(new Set(fragments.map((event) => event.model))).toEqual(new Set(['claude-fb-second']));
      expect(events.at(-1)?.type).toBe('usage');
      const data = await ledgerData(events[0].request_id as string);
      expect((data?.attempts as Array<{ error_code: string | null }>).map((attempt) => attempt.error_code)).toEqual([code, null]);
    });

    it('does not switch after the first streamed byte: the failure is the stream error event', async () => {
      fake.setModel('fb-primary', { response: 'a b c d e f g', failAfterFragments: 2 });
      const from = fake.requests.length;
      const response = await invokePrompt('default', 'resilient', { streaming: true });
      const events = await eventsOf(response);
      expect(events.filter((event) => event.type === 'response')).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({ type: 'error', error_code: 'provider_error' });
      expect(modelsCalled(from)).toEqual(['fb-primary']);
    });

    it('fails with provider_error listing every attempt when every model fails', async () => {
      for (const model of ['fb-primary', 'claude-fb-second', 'fb-third']) fake.setModel(model, { error: { status: 503 } });
      const response = await invokePrompt('default');
      expect(response.status).toBe(502);
      const body = (await response.json()) as { error_code: string; details: { attempts: Array<{ model: string }> } };
      expect(body.error_code).toBe('provider_error');
      expect(body.details.attempts.map((attempt) => attempt.model)).toEqual(['fb-primary', 'claude-fb-second', 'fb-third']);
    });

    it.each([
      ['vision for images', { model: 'fb-seeing', image_inputs: ['photo'], fallbacks: ['fb-plain'] }, 'see images'],
      [
        'structured output for a schema',
        { model: 'fb-json-native', response_format: JSON.parse(FORMAT), fallbacks: ['fb-plain'] },
        'JSON schema',
      ],
      ['a model the catalog knows', { model: 'fb-primary', fallbacks: ['no-such-model'] }, 'not in the model catalog'],
    ])('apply refuses a fallback without %s', async (_, variant, reason) => {
      const response = await post('/v1/private/prompts/apply', {
        prompts: [{ deployment: 'refused', variants: [{ name: 'v', messages: [{ role: 'user', content: 'Look' }], ...variant }] }],
      });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error_code: string; details: Array<{ field: string; messages: string[] }> };
      expect(body.error_code).toBe('validation_error');
      expect(body.details).toEqual([{ field: 'prompts[0].variants[0].fallbacks[0]', messages: [expect.stringContaining(reason)] }]);
    });

    it('apply refuses an agent fallback that cannot call tools when its model can', async () => {
      const response = await post(`/v1/public/workspaces/${workspaceId}/agents`, {
        agent: { name: 'Tools', llm_model: 'fb-primary', model_type: 'llm', fallbacks: ['fb-plain'] },
      });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { details: Array<{ field: string; messages: string[] }> };
      expect(body.details).toEqual([{ field: 'agent.fallbacks[0]', messages: [expect.stringContaining('call tools')] }]);
    });
  });

  describe('structured output', () => {
    it.each([
      ['natively over OpenAI json_schema', 'native', 'fb-json-native', 'json_schema'],
      ['natively over Anthropic tool-forced output', 'anthropic', 'claude-fb-json', 'json_tool'],
      ['by instruction where the model has no native support', 'instructed', 'fb-json-instructed', null],
    ])('answers a valid schema answer %s', async (_, variant, model, structured) => {
      fake.setModel(model, { json: { answer: 'valid', value: { city: 'Paris', population: 2_100_000 } } });
      const from = fake.requests.length;
      const response = await invokePrompt(variant, 'place');
      expect(response.status).toBe(200);
      const body = (await response.json()) as { response: string; model: string };
      expect(JSON.parse(body.response)).toEqual({ city: 'Paris', population: 2_100_000 });
      const sent = fake.requests.slice(from);
      expect(sent).toHaveLength(1);
      expect(sent[0].structured ?? null).toBe(structured);
    });

    it('repairs an answer invalid once with the validation errors, in one more model call', async () => {
      fake.setModel('fb-json-native', { json: { answer: 'invalid_once', value: { city: 'Oslo', population: 700_000 } } });
      const from = fake.requests.length;
      const response = await invokePrompt('native', 'place');
      expect(response.status).toBe(200);
      const body = (await response.json()) as { request_id: string; response: string };
      expect(JSON.parse(body.response)).toEqual({ city: 'Oslo', population: 700_000 });
      const sent = fake.requests.slice(from);
      expect(sent.map((record) => record.jsonAnswer)).toEqual(['invalid', 'valid']);
      expect(sent[1].lastUserText).toContain('not valid against the JSON Schema');
      const attempts = (await ledgerData(body.request_id))?.attempts as Array<Record<string, unknown>>;
      expect(attempts).toEqual([
        expect.objectContaining({ model: 'fb-json-native', error_code: null, violations: 1 }),
        expect.objectContaining({ model: 'fb-json-native', error_code: null, repair: true }),
      ]);
    });

    it('fails with 502 provider_error and details listing each violation when the repair is invalid too', async () => {
      fake.setModel('fb-json-native', { json: { answer: 'invalid', invalidValue: { city: 7, population: 'many', extra: true } } });
      const response = await invokePrompt('native', 'place');
      expect(response.status).toBe(502);
      const body = (await response.json()) as { error_code: string; details: { violations: Array<{ path: string; message: string }> } };
      expect(body.error_code).toBe('provider_error');
      expect(body.details.violations).toEqual(
        expect.arrayContaining([
          { path: '', message: 'must NOT have additional properties' },
          { path: '/city', message: 'must be string' },
          { path: '/population', message: 'must be integer' },
        ]),
      );
    });

    it('gives a workflow step the parsed value, so a condition reads its fields', async () => {
      for (const [population, expected] of [
        [3_000_000, 'big city Lyon'],
        [9_000, 'small town Lyon'],
      ] as const) {
        fake.setModel('fb-json-native', { json: { answer: 'valid', value: { city: 'Lyon', population } } });
        const response = await post('/v1/workflow/invoke', { deployment: 'triage', variant: 'default' });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { output: string }).output).toBe(expected);
      }
    });

    it('falls back inside a workflow step and keeps the attempts on the step record', async () => {
      fake.setModel('fb-json-native', { error: { status: 429 } });
      fake.setModel('claude-fb-json', { json: { answer: 'valid', value: { city: 'Bergen', population: 290_000 } } });
      const response = await post('/v1/workflow/invoke', { deployment: 'triage', variant: 'default' });
      const body = (await response.json()) as { request_id: string; output: string };
      expect(body.output).toBe('small town Bergen');
      const { steps } = await get<{
        steps: Array<{ step_id: string; model_attempts?: Array<{ model: string; error_code: string | null }> }>;
      }>(`/v1/private/workflow_runs/${body.request_id}/steps`);
      expect(
        steps.find((step) => step.step_id === 'extract')?.model_attempts?.map((attempt) => [attempt.model, attempt.error_code]),
      ).toEqual([
        ['fb-json-native', 'rate_limited'],
        ['claude-fb-json', null],
      ]);
    });
  });

  it('runs an agent with both: its model down, the fallback answers to the schema after a repair', async () => {
    const created = await post(`/v1/public/workspaces/${workspaceId}/agents`, {
      agent: {
        name: 'Both',
        llm_model: 'fb-json-native',
        model_type: 'llm',
        fallbacks: ['claude-fb-json'],
        response_format: JSON.parse(FORMAT),
      },
    });
    expect(created.status).toBe(200);
    const agent = ((await created.json()) as { agent: { id: string; fallbacks: string[]; response_format: unknown } }).agent;
    expect(agent).toMatchObject({ fallbacks: ['claude-fb-json'], response_format: JSON.parse(FORMAT) });
    fake.setModel('fb-json-native', { error: { status: 500 } });
    fake.setModel('claude-fb-json', { json: { answer: 'invalid_once', value: { city: 'Kyoto', population: 1_460_000 } } });
    const response = await post('/v1/agent/invoke', { agent: agent.id, message: 'Where is the temple?' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { request_id: string; model: string; response: string };
    expect(body.model).toBe('claude-fb-json');
    expect(JSON.parse(body.response)).toEqual({ city: 'Kyoto', population: 1_460_000 });
    const attempts = (await ledgerData(body.request_id))?.attempts as Array<Record<string, unknown>>;
    expect(attempts.map((attempt) => [attempt.model, attempt.error_code, attempt.repair ?? false])).toEqual([
      ['fb-json-native', 'provider_unavailable', false],
      ['claude-fb-json', null, false],
      ['claude-fb-json', null, true],
    ]);
  });
});
