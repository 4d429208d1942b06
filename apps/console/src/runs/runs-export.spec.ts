import { exportedRuns, runsToCsv, runsToJsonl, type RunRow } from './runs-export';

const row = (id: string, overrides: Partial<RunRow> = {}): RunRow => ({
  request_id: id,
  status: 'completed',
  request_type: 'prompt',
  requestable_type: 'prompt_deployment',
  requestable_id: '6f1c2b9e-0d4a-4c55-9e1b-3a2d4f5e6a7b',
  message: null,
  metadata: {},
  generated_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  ended_at: null,
  trace_id: null,
  cost_micros: null,
  version: 1,
  label: null,
  user: null,
  api_key_id: null,
  model: 'fake-chat',
  ...overrides,
});

describe('exportedRuns', () => {
  it('pages through the API after the last run of each page, and stops at a short page', async () => {
    const asked: string[] = [];
    const pages = [[row('r1'), row('r2')], [row('r3'), row('r4')], [row('r5')]];
    const fetchPage = async (path: string) => {
      asked.push(path);
      return pages[asked.length - 1];
    };
    const got: string[] = [];
    for await (const page of exportedRuns({ status: 'completed' }, fetchPage, 2)) got.push(...page.map((one) => one.request_id));
    expect(got).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(asked).toEqual([
      '/v1/private/requests?status=completed&limit=2',
      '/v1/private/requests?status=completed&limit=2&before=r2',
      '/v1/private/requests?status=completed&limit=2&before=r4',
    ]);
  });

  it('asks once more after a full last page, and yields nothing for the empty answer', async () => {
    const answers = [[row('r1'), row('r2')], []];
    let calls = 0;
    const got: RunRow[][] = [];
    for await (const page of exportedRuns({}, async () => answers[calls++], 2)) got.push(page);
    expect([calls, got.length]).toEqual([2, 1]);
  });
});

describe('runsToCsv', () => {
  it('writes a header and one CRLF line per run, metadata as JSON, quoting and formula escaping', () => {
    const csv = runsToCsv([row('r1', { message: 'said "hi", then left', metadata: { ticket: 'T-1' }, user: '=cmd', cost_micros: 12 })]);
    const [header, line, end] = csv.split('\r\n');
    expect(header).toBe(
      'request_id,status,request_type,requestable_type,requestable_id,generated_at,started_at,ended_at,cost_micros,model,version,label,user,api_key_id,trace_id,message,metadata',
    );
    expect(line).toBe(
      `r1,completed,prompt,prompt_deployment,6f1c2b9e-0d4a-4c55-9e1b-3a2d4f5e6a7b,2026-01-01T00:00:00.000Z,,,12,fake-chat,1,,'=cmd,,,"said ""hi"", then left","{""ticket"":""T-1""}"`,
    );
    expect(end).toBe('');
  });
});

describe('runsToJsonl', () => {
  it('writes one object per line, as answered', () => {
    const rows = [row('r1'), row('r2', { metadata: { a: 1 } })];
    expect(
      runsToJsonl(rows)
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(rows);
  });
});
