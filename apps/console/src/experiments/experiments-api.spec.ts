import {
  experimentRunsPath,
  gridCellsPath,
  gridOf,
  RUNS_PAGE_SIZE,
  shown,
  type ExperimentCell,
  type ExperimentRun,
} from './experiments-api';

const candidate = (name: string, active = true) => ({
  name,
  active,
  inline: false,
  deployment: 'd',
  variant: 'v',
  label: null,
  version: 1,
  model: 'm',
});
const cell = (row_id: string, candidateName: string, passed: boolean): ExperimentCell => ({
  id: `${row_id}-${candidateName}`,
  row_id,
  candidate: candidateName,
  status: 'succeeded',
  request_id: 'req_1',
  output: `out ${row_id}`,
  error: null,
  latency_ms: 1,
  cost_micros: 0,
  evaluations: [],
  passed,
});

const run = {
  candidates: [candidate('base'), candidate('off', false), candidate('next')],
  summary: [
    { candidate: 'base', vs_baseline: undefined },
    { candidate: 'next', vs_baseline: { regressed_rows: ['r2'] } },
  ],
} as unknown as ExperimentRun;

describe('gridOf', () => {
  it('lays cells out as rows × active candidates, in the order the cells came, and marks the regressed ones', () => {
    const cells = [cell('r1', 'base', true), cell('r1', 'next', true), cell('r2', 'base', true), cell('r2', 'next', false)];
    const rows = [{ id: 'r2', inputs: { city: 'Rome' }, expected_output: 'Rome', metadata: {} }];
    const grid = gridOf(run, cells, rows);
    expect(
      grid.map((line) => [line.rowId, line.row?.inputs ?? null, line.cells.map((c) => [c.candidate, c.cell?.id, c.regressed])]),
    ).toEqual([
      [
        'r1',
        null,
        [
          ['base', 'r1-base', false],
          ['next', 'r1-next', false],
        ],
      ],
      [
        'r2',
        { city: 'Rome' },
        [
          ['base', 'r2-base', false],
          ['next', 'r2-next', true],
        ],
      ],
    ]);
  });

  it('leaves a candidate without a cell on that row empty', () => {
    expect(gridOf(run, [cell('r1', 'base', true)], [])[0].cells.map((c) => c.cell?.id ?? null)).toEqual(['r1-base', null]);
  });
});

describe('gridCellsPath', () => {
  it('pages by whole rows: rows per page × active candidates', () => {
    expect(gridCellsPath('req_1', 0, 2)).toBe('/v1/private/experiment_runs/req_1/cells?limit=40&offset=0');
    expect(gridCellsPath('req_1', 2, 3)).toBe('/v1/private/experiment_runs/req_1/cells?limit=60&offset=120');
  });
});

describe('shown', () => {
  it('shows text as it is and anything else as JSON', () => {
    expect([shown('a'), shown({ b: 1 }), shown(null), shown(undefined), shown(2)]).toEqual(['a', '{"b":1}', '', '', '2']);
  });
});

describe('experimentRunsPath', () => {
  it('asks for the newest page, then the page before a run id', () => {
    expect(experimentRunsPath()).toBe(`/v1/private/experiment_runs?limit=${RUNS_PAGE_SIZE}`);
    expect(experimentRunsPath('req_0193e8a3b0a77000a000000000000001')).toBe(
      `/v1/private/experiment_runs?limit=${RUNS_PAGE_SIZE}&before=req_0193e8a3b0a77000a000000000000001`,
    );
  });
});
