import type { ExperimentCellView } from '@waggle/contracts';
import { csvHeader, csvLine, evaluatorNames, isExportFormat, jsonlLine } from './experiment-export';

const cell: ExperimentCellView = {
  id: '0b6f2a5e-8a44-4a5e-9a8e-1b9f7f3f1c11',
  row_id: 'row-1',
  candidate: 'inline',
  status: 'succeeded',
  request_id: 'req_0193e8a3b0a77000a000000000000001',
  output: 'Paris, "the" capital\nof France',
  error: null,
  latency_ms: 12,
  usage: null,
  cost_micros: 30,
  evaluations: [{ evaluator: 'exact', type: 'exact', score: 1, passed: true, reason: 'equal' }],
  passed: true,
};

describe('the export of experiment cells', () => {
  it('writes a CSV header with a score column per evaluator, and quotes what needs quoting', () => {
    const names = evaluatorNames([{ type: 'exact' }, { type: 'contains', name: 'has-paris' }]);
    expect(names).toEqual(['exact', 'has-paris']);
    expect(csvHeader(names)).toBe(
      'row_id,candidate,status,passed,latency_ms,cost_micros,output,error_code,score:exact,score:has-paris\r\n',
    );
    expect(csvLine(cell, names)).toBe('row-1,inline,succeeded,true,12,30,"Paris, ""the"" capital\nof France",,1,\r\n');
  });

  it('writes a structured output as JSON and an errored cell with its code', () => {
    const errored: ExperimentCellView = {
      ...cell,
      status: 'errored',
      output: { city: 'Paris' },
      error: { code: 'run_cancelled', message: 'x' },
      evaluations: [],
      passed: false,
    };
    expect(csvLine(errored, ['exact'])).toBe('row-1,inline,errored,false,12,30,"{""city"":""Paris""}",run_cancelled,\r\n');
  });

  it('neutralises an output a spreadsheet would run as a formula', () => {
    for (const output of ['=HYPERLINK("http://x")', '+1', '-2+3', '@SUM(A1)']) {
      const line = csvLine({ ...cell, output }, []);
      expect(line).toContain(`'${output.replaceAll('"', '""')}`);
    }
    expect(csvLine({ ...cell, output: 'Paris' }, [])).toBe('row-1,inline,succeeded,true,12,30,Paris,\r\n');
  });

  it('writes one JSON cell per JSONL line and knows only its two formats', () => {
    expect(JSON.parse(jsonlLine(cell))).toEqual(cell);
    expect(jsonlLine(cell).endsWith('\n')).toBe(true);
    expect([isExportFormat('csv'), isExportFormat('jsonl'), isExportFormat('toString'), isExportFormat(['csv'])]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
