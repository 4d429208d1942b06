import type { DatasetDetailView, DatasetRowsPageView, DatasetRowView, DatasetVersionView, DatasetView } from '@waggle/contracts';
import { DATASET_ROW_LIMIT } from '@waggle/contracts';
import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@waggle/testing';

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MIB = 1024 * 1024;

/**
 * Datasets over HTTP (the spec's decisions on experiments and releases, "datasets" and "paths"),
 * as a client calls them: gateway and invocation service, PostgreSQL and NATS (bodies past
 * NATS's max_payload cross as claim checks).
 */
describe('datasets: /v1/private/datasets, versions, imports and rows', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let key: string;
  let otherKey: string;
  let workspaceId: string;

  const send = async (method: string, path: string, body?: unknown, options: { apiKey?: string; contentType?: string } = {}) => {
    const raw = typeof body === 'string' || Buffer.isBuffer(body);
    const response = await fetch(`${gateway.baseUrl}/v1/private${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.apiKey ?? key}`,
        ...(body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' }),
      },
      ...(body === undefined ? {} : { body: raw ? (body as string | Buffer) : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) } satisfies Answer;
  };

  const createDataset = async (name: string, apiKey = key): Promise<DatasetView> => {
    const created = await send('POST', '/datasets', { name }, { apiKey });
    expect(created.status).toBe(201);
    return created.body as unknown as DatasetView;
  };

  const allRows = async (datasetId: string, version: number): Promise<DatasetRowView[]> => {
    const page = await send('GET', `/datasets/${datasetId}/versions/${version}/rows?limit=1000`);
    expect(page.status).toBe(200);
    return (page.body as unknown as DatasetRowsPageView).rows;
  };

  const versionNumbers = async (datasetId: string): Promise<number[]> =>
    ((await send('GET', `/datasets/${datasetId}`)).body as unknown as DatasetDetailView).versions.map((version) => version.version);

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn' };
    apps.push(spawnApp('catalog', await freePort(), env), spawnApp('invocation', await freePort(), env));
    gateway = spawnApp('gateway', await freePort(), env);
    apps.push(gateway);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    const created = await cliJson<{ api_key: string; workspace_id: string }>(['workspace', 'create', '--name', 'e2e datasets']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    otherKey = (await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e datasets other'])).api_key;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it('creates a dataset, a version from rows, lists, reads and pages its rows', async () => {
    const created = await send('POST', '/datasets', { name: 'support-questions', description: 'Questions customers ask' });
    expect(created.status).toBe(201);
    const dataset = created.body as unknown as DatasetView;
    expect(dataset).toEqual({
      id: expect.stringMatching(UUID),
      name: 'support-questions',
      description: 'Questions customers ask',
      latest_version: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await send('POST', '/datasets', { name: 'support-questions' })).toMatchObject({
      status: 422,
      body: {
        error_code: 'validation_error',
        message: 'A dataset named support-questions already exists',
        details: [{ field: 'name', messages: ['A dataset named support-questions already exists'] }],
      },
    });

    const rows = Array.from({ length: 250 }, (_, index) => ({
      inputs: { question: `question ${index}` },
      ...(index % 2 === 0 ? { expected_output: `answer ${index}` } : {}),
      ...(index === 1 ? { expected_output: { structured: [1, 2] }, metadata: { topic: 'billing', priority: 2, urgent: true } } : {}),
    }));
    const version = await send('POST', `/datasets/${dataset.id}/versions`, { rows });
    expect(version).toEqual({
      status: 201,
      body: { dataset_id: dataset.id, version: 1, base_version: null, row_count: 250, created_at: expect.any(String) },
    });

    const first = await send('GET', `/datasets/${dataset.id}/versions/1/rows`);
    expect(first.status).toBe(200);
    const firstPage = first.body as unknown as DatasetRowsPageView;
    expect(firstPage.rows).toHaveLength(100);
    expect(firstPage).toMatchObject({ total: 250, next_offset: 100 });
    expect(firstPage.rows[0]).toEqual({
      id: expect.stringMatching(UUID),
      inputs: { question: 'question 0' },
      expected_output: 'answer 0',
      metadata: {},
    });
    expect(firstPage.rows[1]).toEqual({
      id: expect.stringMatching(UUID),
      inputs: { question: 'question 1' },
      expected_output: { structured: [1, 2] },
      metadata: { topic: 'billing', priority: 2, urgent: true },
    });
    expect(firstPage.rows[3].expected_output).toBeNull();
    const last = (await send('GET', `/datasets/${dataset.id}/versions/1/rows?limit=100&offset=200`)).body as unknown as DatasetRowsPageView;
    expect(last.rows.map((row) => row.inputs.question)).toEqual(rows.slice(200).map((row) => row.inputs.question));
    expect(last.next_offset).toBeNull();
    expect((await send('GET', `/datasets/${dataset.id}/versions/1/rows?offset=250`)).body).toEqual({
      rows: [],
      total: 250,
      next_offset: null,
    });
    for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc', 'cursor=1'])
      expect({ query, status: (await send('GET', `/datasets/${dataset.id}/versions/1/rows?${query}`)).status }).toEqual({
        query,
        status: 422,
      });

    expect(await send('GET', '/datasets')).toEqual({
      status: 200,
      body: { datasets: [{ ...dataset, latest_version: 1, updated_at: expect.any(String) }] },
    });
    expect(await send('GET', `/datasets/${dataset.id}`)).toEqual({
      status: 200,
      body: { ...dataset, latest_version: 1, updated_at: expect.any(String), versions: [version.body] },
    });
    for (const path of [
      `/datasets/${dataset.id}/versions/2/rows`,
      `/datasets/${dataset.id}/versions/0/rows`,
      `/datasets/${dataset.id}/versions/x/rows`,
    ])
      expect({ path, answer: await send('GET', path) }).toMatchObject({
        path,
        answer: { status: 404, body: { error_code: 'resource_not_found' } },
      });
  });

  it('makes a version from a base with add, update and remove, keeping the ids of the rows it keeps', async () => {
    const dataset = await createDataset('base-changes');
    await send('POST', `/datasets/${dataset.id}/versions`, { rows: [1, 2, 3, 4].map((n) => ({ inputs: { n } })) });
    const base = await allRows(dataset.id, 1);
    const made = await send('POST', `/datasets/${dataset.id}/versions`, {
      base_version: 1,
      add: [{ inputs: { n: 5 }, expected_output: 'five' }],
      update: [{ id: base[1].id, inputs: { n: 20 }, expected_output: 'twenty', metadata: { edited: true } }],
      remove: [base[2].id],
    });
    expect(made).toEqual({
      status: 201,
      body: { dataset_id: dataset.id, version: 2, base_version: 1, row_count: 4, created_at: expect.any(String) },
    });
    const rows = await allRows(dataset.id, 2);
    expect(rows).toEqual([
      base[0],
      { id: base[1].id, inputs: { n: 20 }, expected_output: 'twenty', metadata: { edited: true } },
      base[3],
      { id: expect.stringMatching(UUID), inputs: { n: 5 }, expected_output: 'five', metadata: {} },
    ]);
    expect(base.map((row) => row.id)).not.toContain(rows[3].id);
    // The base is immutable.
    expect(await allRows(dataset.id, 1)).toEqual(base);
    // An update without expected_output or metadata replaces them with none.
    await send('POST', `/datasets/${dataset.id}/versions`, { base_version: 2, update: [{ id: base[1].id, inputs: { n: 21 } }] });
    expect((await allRows(dataset.id, 3))[1]).toEqual({ id: base[1].id, inputs: { n: 21 }, expected_output: null, metadata: {} });
    // An empty version is a version.
    expect(await send('POST', `/datasets/${dataset.id}/versions`, { rows: [] })).toMatchObject({
      status: 201,
      body: { version: 4, row_count: 0 },
    });

    const unknownId = randomUUID();
    for (const [body, field] of [
      [{ base_version: 1, remove: [unknownId] }, 'remove'],
      [{ base_version: 1, update: [{ id: unknownId, inputs: {} }] }, 'update'],
      [{ base_version: 1, update: [{ id: base[0].id, inputs: {} }], remove: [base[0].id] }, 'remove'],
      [{ base_version: 9 }, 'base_version'],
      [{ base_version: 2 ** 40 }, 'base_version'],
      [{ rows: [], base_version: 1 }, 'rows'],
      [{ add: [{ inputs: {} }] }, 'add'],
      [{ rows: [{ inputs: 'text' }] }, 'rows'],
      [{ rows: [{ inputs: {}, metadata: { nested: { no: 1 } } }] }, 'rows'],
      [{ rows: [{ inputs: {}, extra: 1 }] }, 'rows'],
      [{ rows: 'x' }, 'rows'],
      [{ base_version: 1, update: [{ inputs: {} }] }, 'update'],
    ] as const) {
      const answer = await send('POST', `/datasets/${dataset.id}/versions`, body);
      expect({ field, status: answer.status, code: answer.body?.error_code }).toEqual({ field, status: 422, code: 'validation_error' });
      expect(answer.body?.details).toEqual([expect.objectContaining({ field })]);
    }
    const refused = await send('POST', `/datasets/${dataset.id}/versions`, { rows: [{ inputs: {} }, { inputs: [] }] });
    expect(refused.body?.details).toEqual([{ field: 'rows', messages: ['row 1: inputs must be an object'] }]);
    expect(await versionNumbers(dataset.id)).toEqual([4, 3, 2, 1]);
  });

  it('numbers versions made at once 1, 2, 3… without an error', async () => {
    const dataset = await createDataset('concurrent');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => send('POST', `/datasets/${dataset.id}/versions`, { rows: [{ inputs: { index } }] })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(answers.map((answer) => (answer.body as unknown as DatasetVersionView).version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await send('GET', `/datasets/${dataset.id}`)).body).toMatchObject({ latest_version: 6 });
  });

  it('refuses a version over 10,000 rows before writing anything, from rows or from a base', async () => {
    const dataset = await createDataset('row-cap');
    const row = (index: number) => ({ inputs: { index } });
    const cap = await send('POST', `/datasets/${dataset.id}/versions`, {
      rows: Array.from({ length: DATASET_ROW_LIMIT + 1 }, (_, index) => row(index)),
    });
    expect(cap).toEqual({
      status: 422,
      body: expect.objectContaining({
        error_code: 'experiment_dataset_row_limit_exceeded',
        message: 'A dataset version cannot have more than 10,000 rows.',
        details: { max_rows: DATASET_ROW_LIMIT, rows: DATASET_ROW_LIMIT + 1 },
      }),
    });
    expect(await versionNumbers(dataset.id)).toEqual([]);
    const full = await send('POST', `/datasets/${dataset.id}/versions`, {
      rows: Array.from({ length: DATASET_ROW_LIMIT }, (_, index) => row(index)),
    });
    expect(full).toMatchObject({ status: 201, body: { version: 1, row_count: DATASET_ROW_LIMIT } });
    const [firstRow] = await allRows(dataset.id, 1);
    // 10,000 - 1 + 2: over the cap only once the base's rows are counted.
    const overBase = await send('POST', `/datasets/${dataset.id}/versions`, {
      base_version: 1,
      remove: [firstRow.id],
      add: [row(-1), row(-2)],
    });
    expect(overBase).toMatchObject({
      status: 422,
      body: { error_code: 'experiment_dataset_row_limit_exceeded', details: { rows: DATASET_ROW_LIMIT + 1 } },
    });
    expect(await versionNumbers(dataset.id)).toEqual([1]);
    const atCap = await send('POST', `/datasets/${dataset.id}/versions`, { base_version: 1, remove: [firstRow.id], add: [row(-1)] });
    expect(atCap).toMatchObject({ status: 201, body: { version: 2, base_version: 1, row_count: DATASET_ROW_LIMIT } });
    const imported = await send(
      'POST',
      `/datasets/${dataset.id}/versions/import?format=jsonl&base_version=2`,
      '{"inputs":{"one":"more"}}\n',
      {
        contentType: 'application/jsonl',
      },
    );
    expect(imported).toMatchObject({ status: 422, body: { error_code: 'experiment_dataset_row_limit_exceeded' } });
    expect(await versionNumbers(dataset.id)).toEqual([2, 1]);
  });

  it('bounds a row at 256 KiB and a body at 10 MiB (413), and carries a 9 MiB body end to end', async () => {
    const dataset = await createDataset('sizes');
    const bigRow = { inputs: { text: 'x'.repeat(257 * 1024) } };
    const tooLarge = await send('POST', `/datasets/${dataset.id}/versions`, { rows: [{ inputs: {} }, bigRow] });
    expect(tooLarge).toMatchObject({
      status: 413,
      body: {
        error_code: 'validation_error',
        details: [{ field: 'rows.1', messages: [expect.stringMatching(/^Row 1 is 2\d{5} bytes of JSON; a row may have at most 262144$/)] }],
      },
    });
    const tooLargeLine = await send(
      'POST',
      `/datasets/${dataset.id}/versions/import?format=jsonl`,
      `{"inputs":{}}\n\n${JSON.stringify(bigRow)}\n`,
    );
    expect(tooLargeLine).toMatchObject({ status: 413, body: { error_code: 'validation_error', details: [{ field: 'lines.3' }] } });

    const eleven = Buffer.alloc(11 * MIB, 'a');
    expect(await send('POST', `/datasets/${dataset.id}/versions/import?format=csv`, eleven, { contentType: 'text/csv' })).toMatchObject({
      status: 413,
      body: { error_code: 'validation_error', message: 'Request body is too large' },
    });
    const elevenJson = JSON.stringify({ rows: [{ inputs: { text: 'y'.repeat(11 * MIB) } }] });
    expect(await send('POST', `/datasets/${dataset.id}/versions`, elevenJson)).toMatchObject({
      status: 413,
      body: { error_code: 'validation_error' },
    });
    expect(await versionNumbers(dataset.id)).toEqual([]);

    // ~9 MiB: 40 rows of 230 KiB each, as JSON and as an upload; both past NATS's 1 MiB message.
    const nineRows = Array.from({ length: 40 }, (_, index) => ({ inputs: { index, text: `${index}`.padEnd(232 * 1024, 'z') } }));
    const nine = JSON.stringify({ rows: nineRows });
    expect(Buffer.byteLength(nine)).toBeGreaterThan(9 * MIB);
    expect(await send('POST', `/datasets/${dataset.id}/versions`, nine)).toMatchObject({
      status: 201,
      body: { version: 1, row_count: 40 },
    });
    const jsonl = nineRows.map((row) => JSON.stringify(row)).join('\n');
    expect(
      await send('POST', `/datasets/${dataset.id}/versions/import?format=jsonl`, jsonl, { contentType: 'application/x-ndjson' }),
    ).toMatchObject({
      status: 201,
      body: { version: 2, row_count: 40 },
    });
    const stored = await allRows(dataset.id, 2);
    expect(stored.map((row) => row.inputs)).toEqual(nineRows.map((row) => row.inputs));
  });

  it('imports CSV with a column map, quoted fields, embedded newlines and a BOM, and without a map', async () => {
    const dataset = await createDataset('csv');
    const csv = '\uFEFFquestion,answer,topic,ignored\r\n"Hello, world?","Line one\nline two",greeting,x\r\nplain,"say ""hi""",,y\r\n\r\n';
    const columns = encodeURIComponent(JSON.stringify({ question: 'inputs.question', answer: 'expected_output', topic: 'metadata.topic' }));
    const imported = await send('POST', `/datasets/${dataset.id}/versions/import?format=csv&columns=${columns}`, csv, {
      contentType: 'text/csv',
    });
    expect(imported).toEqual({
      status: 201,
      body: { dataset_id: dataset.id, version: 1, base_version: null, row_count: 2, created_at: expect.any(String) },
    });
    expect(await allRows(dataset.id, 1)).toEqual([
      {
        id: expect.stringMatching(UUID),
        inputs: { question: 'Hello, world?' },
        expected_output: 'Line one\nline two',
        metadata: { topic: 'greeting' },
      },
      { id: expect.stringMatching(UUID), inputs: { question: 'plain' }, expected_output: 'say "hi"', metadata: {} },
    ]);

    const plain = await send(
      'POST',
      `/datasets/${dataset.id}/versions/import?format=csv&base_version=1`,
      'city,expected_output\nParis,France\n',
      {
        contentType: 'application/octet-stream',
      },
    );
    expect(plain).toMatchObject({ status: 201, body: { version: 2, base_version: 1, row_count: 3 } });
    const rows = await allRows(dataset.id, 2);
    expect(rows.slice(0, 2)).toEqual(await allRows(dataset.id, 1));
    expect(rows[2]).toMatchObject({ inputs: { city: 'Paris' }, expected_output: 'France', metadata: {} });

    for (const [query, body, message] of [
      ['format=csv', 'a,b\n1,2,3\n', /^The CSV cannot be read near line 2: /],
      ['format=csv', 'a,"b\n', /^The CSV cannot be read near line 1: Quote Not Closed/],
      ['format=csv', '', /^The CSV has no header row$/],
      ['format=csv', 'a,a\n1,2\n', /^CSV header 1 is empty or repeated \(a\)$/],
      ['format=csv&columns=%7Bnot', 'a\n1\n', /^columns must be a JSON object/],
      [`format=csv&columns=${encodeURIComponent('{"a":"output"}')}`, 'a\n1\n', /^columns maps a to "output", which is not/],
      [
        `format=csv&columns=${encodeURIComponent('{"b":"inputs.b"}')}`,
        'a\n1\n',
        /^columns names the header b, which the CSV does not have$/,
      ],
      [`format=jsonl&columns=${encodeURIComponent('{"a":"inputs.a"}')}`, '{"inputs":{}}', /^columns applies to CSV imports only$/],
    ] as const) {
      const answer = await send('POST', `/datasets/${dataset.id}/versions/import?${query}`, body, { contentType: 'text/csv' });
      expect({ query, body, status: answer.status, code: answer.body?.error_code }).toEqual({
        query,
        body,
        status: 400,
        code: 'validation_error',
      });
      expect(answer.body?.message).toMatch(message);
    }
    const notUtf8 = await send('POST', `/datasets/${dataset.id}/versions/import?format=csv`, Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]));
    expect(notUtf8).toMatchObject({ status: 400, body: { error_code: 'validation_error', message: 'The upload is not UTF-8 text' } });
    expect(await send('POST', `/datasets/${dataset.id}/versions/import?format=xml`, 'a\n1\n')).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error', details: [expect.objectContaining({ field: 'format' })] },
    });
    expect(await versionNumbers(dataset.id)).toEqual([2, 1]);
  });

  it('imports JSONL skipping blank lines, and refuses a bad line naming it', async () => {
    const dataset = await createDataset('jsonl');
    const jsonl = '{"inputs":{"q":"a"},"expected_output":"A"}\n\n   \n{"inputs":{"q":"b"},"metadata":{"k":1}}\r\n';
    expect(await send('POST', `/datasets/${dataset.id}/versions/import?format=jsonl`, jsonl)).toMatchObject({
      status: 201,
      body: { row_count: 2 },
    });
    expect((await allRows(dataset.id, 1)).map(({ inputs, expected_output, metadata }) => ({ inputs, expected_output, metadata }))).toEqual([
      { inputs: { q: 'a' }, expected_output: 'A', metadata: {} },
      { inputs: { q: 'b' }, expected_output: null, metadata: { k: 1 } },
    ]);
    for (const [body, message] of [
      ['{"inputs":{}}\n{"inputs":\n', 'line 2 is not valid JSON'],
      ['{"inputs":{}}\n\n[1]\n', 'line 3: a row must be an object {inputs, expected_output?, metadata?}'],
      ['{"inputs":"no"}\n', 'line 1: inputs must be an object'],
      [
        '{"inputs":{},"metadata":{"a":[1]}}\n',
        'line 1: metadata.a must be a string, number, boolean or null (nested objects and arrays are not accepted)',
      ],
    ] as const) {
      const answer = await send('POST', `/datasets/${dataset.id}/versions/import?format=jsonl`, body);
      expect({ body, status: answer.status, code: answer.body?.error_code, message: answer.body?.message }).toEqual({
        body,
        status: 400,
        code: 'validation_error',
        message,
      });
    }
    expect(await versionNumbers(dataset.id)).toEqual([1]);
  });

  it("keeps one workspace's datasets from another, and deletes a dataset with its versions", async () => {
    const dataset = await createDataset('private');
    await send('POST', `/datasets/${dataset.id}/versions`, { rows: [{ inputs: { secret: true } }] });
    const other = await createDataset('private', otherKey);
    expect(other.id).not.toBe(dataset.id);
    const notFound = {
      status: 404,
      body: { error: 'Dataset not found', message: 'Dataset not found', error_code: 'resource_not_found', code: 'resource_not_found' },
    };
    expect(await send('GET', `/datasets/${dataset.id}`, undefined, { apiKey: otherKey })).toEqual(notFound);
    expect(await send('GET', `/datasets/${dataset.id}/versions/1/rows`, undefined, { apiKey: otherKey })).toEqual(notFound);
    expect(await send('POST', `/datasets/${dataset.id}/versions`, { rows: [] }, { apiKey: otherKey })).toEqual(notFound);
    expect(await send('POST', `/datasets/${dataset.id}/versions/import?format=jsonl`, '', { apiKey: otherKey })).toEqual(notFound);
    expect(await send('DELETE', `/datasets/${dataset.id}`, undefined, { apiKey: otherKey })).toEqual(notFound);
    expect(
      ((await send('GET', '/datasets', undefined, { apiKey: otherKey })).body?.datasets as DatasetView[]).map((item) => item.id),
    ).toEqual([other.id]);
    expect(await versionNumbers(dataset.id)).toEqual([1]);

    expect(await send('DELETE', `/datasets/${dataset.id}`)).toEqual({ status: 200, body: { message: 'Dataset deleted successfully' } });
    expect(await send('GET', `/datasets/${dataset.id}`)).toEqual(notFound);
    expect(await send('GET', `/datasets/${dataset.id}/versions/1/rows`)).toEqual(notFound);
    expect(await send('DELETE', `/datasets/${dataset.id}`)).toEqual(notFound);
    expect((await send('GET', '/datasets/not-a-uuid')).status).toBe(404);
    expect((await send('GET', '/datasets', undefined, { apiKey: 'wgl_not-a-key' })).status).toBe(401);
  });

  it('manages datasets from the operator CLI: create, versions from YAML, JSON, CSV and JSONL files, rows, show, delete', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'waggle-datasets-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(directory, name), text);
      return join(directory, name);
    };
    const created = await cliJson<DatasetView>([
      'dataset',
      'create',
      workspaceId,
      '--name',
      'from-cli',
      '--description',
      'made by the CLI',
    ]);
    expect(created).toMatchObject({ name: 'from-cli', description: 'made by the CLI', latest_version: null });
    const yaml = file(
      'rows.yaml',
      'rows:\n  - inputs: {q: one}\n    expected_output: One\n  - inputs: {q: two}\n    metadata: {lang: en}\n',
    );
    expect(await cliJson<DatasetVersionView>(['dataset', 'version', 'create', workspaceId, created.id, '-f', yaml])).toMatchObject({
      version: 1,
      row_count: 2,
    });
    const list = file('list.json', JSON.stringify([{ inputs: { q: 'three' } }]));
    expect(
      await cliJson<DatasetVersionView>(['dataset', 'version', 'create', workspaceId, created.id, '-f', list, '--base', '1']),
    ).toMatchObject({
      version: 2,
      base_version: 1,
      row_count: 3,
    });
    const csv = file('rows.csv', 'question,answer\n"four, five",Four\n');
    const columns = JSON.stringify({ question: 'inputs.q', answer: 'expected_output' });
    expect(
      await cliJson<DatasetVersionView>([
        'dataset',
        'version',
        'create',
        workspaceId,
        created.id,
        '-f',
        csv,
        '--columns',
        columns,
        '--base',
        '2',
      ]),
    ).toMatchObject({ version: 3, base_version: 2, row_count: 4 });
    const jsonl = file('rows.jsonl', '{"inputs":{"q":"six"}}\n');
    expect(await cliJson<DatasetVersionView>(['dataset', 'version', 'create', workspaceId, created.id, '-f', jsonl])).toMatchObject({
      version: 4,
      base_version: null,
      row_count: 1,
    });

    const page = await cliJson<DatasetRowsPageView>(['dataset', 'rows', workspaceId, created.id, '3', '--limit', '2', '--offset', '2']);
    expect(page).toMatchObject({ total: 4, next_offset: null });
    expect(page.rows.map((row) => [row.inputs, row.expected_output])).toEqual([
      [{ q: 'three' }, null],
      [{ q: 'four, five' }, 'Four'],
    ]);
    expect(await allRows(created.id, 3)).toEqual([...(await allRows(created.id, 2)), page.rows[1]]);
    const shown = await cliJson<DatasetDetailView>(['dataset', 'show', workspaceId, created.id]);
    expect(shown.versions.map((version) => version.version)).toEqual([4, 3, 2, 1]);
    expect((await cliJson<DatasetView[]>(['dataset', 'list', workspaceId])).map((item) => item.name)).toContain('from-cli');

    const refused = await run(['dataset', 'version', 'create', workspaceId, created.id, '-f', jsonl, '--columns', '{}']);
    expect(refused).toMatchObject({ code: 64, stderr: expect.stringContaining('--columns applies to a .csv file only') });
    const badRows = await run(['dataset', 'version', 'create', workspaceId, created.id, '-f', file('bad.yaml', '- inputs: text\n')]);
    expect(badRows.code).toBe(1);
    expect(badRows.stderr).toContain('row 0: inputs must be an object');
    expect(await cliJson<{ id: string }>(['dataset', 'delete', workspaceId, created.id, '--yes'])).toEqual({ id: created.id });
    expect((await send('GET', `/datasets/${created.id}`)).status).toBe(404);
  });
});

const execFileAsync = promisify(execFile);

/** The built CLI as a process, its exit code and output kept whatever they are. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [join(REPO_ROOT, 'dist/tools/cli/src/main.js'), ...args], {
      cwd: REPO_ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failed.code), stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
