import { WaggleException } from '@waggle/errors';
import { columnMap, importRows, rowsFromCsv, rowsFromJsonl } from './dataset-import';

/** The refusal `work` throws: its status, code and English message. */
function refusalOf(work: () => unknown): { status: number; code: string; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof WaggleException) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('dataset imports', () => {
  describe('CSV', () => {
    it('maps every header to an input, except expected_output, without a column map', () => {
      expect(rowsFromCsv('q,expected_output\r\nhi,HI\r\nbye,\r\n', undefined)).toEqual({
        rows: [{ inputs: { q: 'hi' }, expected_output: 'HI' }, { inputs: { q: 'bye' } }],
        lines: [2, 3],
      });
    });

    it('follows a column map, leaving out the headers it does not name and empty metadata cells', () => {
      const map = columnMap('{"Question":"inputs.question","Answer":"expected_output","Topic":"metadata.topic"}');
      expect(rowsFromCsv('\uFEFFQuestion,Answer,Topic,Notes\n"a, b","x\ny",billing,n1\nc,,,n2\n', map)).toEqual({
        rows: [{ inputs: { question: 'a, b' }, expected_output: 'x\ny', metadata: { topic: 'billing' } }, { inputs: { question: 'c' } }],
        lines: [3, 4],
      });
    });

    it('refuses what it cannot read, naming the line', () => {
      expect(refusalOf(() => rowsFromCsv('a,b\n1,2\n3\n', undefined))).toEqual({
        status: 400,
        code: 'validation_error',
        message: expect.stringMatching(/^The CSV cannot be read near line 3: /),
      });
      expect(refusalOf(() => rowsFromCsv('', undefined)).message).toBe('The CSV has no header row');
      expect(refusalOf(() => rowsFromCsv('a,,b\n1,2,3\n', undefined)).message).toBe('CSV header 1 is empty or repeated ()');
      expect(refusalOf(() => rowsFromCsv('a\n1\n', columnMap('{"b":"inputs.b"}'))).message).toBe(
        'columns names the header b, which the CSV does not have',
      );
    });

    it('refuses column maps that are not a map of headers to inputs, expected_output or metadata', () => {
      for (const columns of ['', '[]', '{}', 'null', '"inputs.a"', '{"a":1}'])
        expect({ columns, message: refusalOf(() => columnMap(columns)).message }).toEqual({
          columns,
          message: expect.stringMatching(/^columns (must be a JSON object|maps a to 1)/),
        });
      for (const target of ['inputs.', 'metadata.', 'output', 'inputs', 'expected_output.x'])
        expect(refusalOf(() => columnMap(JSON.stringify({ a: target }))).message).toBe(
          `columns maps a to ${JSON.stringify(target)}, which is not inputs.<name>, expected_output or metadata.<key>`,
        );
      expect(refusalOf(() => columnMap('{"a":"inputs.x","b":"inputs.x"}')).message).toBe('columns maps more than one header to inputs.x');
      expect(columnMap('{"a":"inputs.x.y"}').get('a')).toEqual({ kind: 'inputs', key: 'x.y' });
    });
  });

  describe('JSONL', () => {
    it('reads one row per line, skipping blank lines and a BOM', () => {
      expect(
        rowsFromJsonl('\uFEFF{"inputs":{"a":1}}\n\n  \r\n{"inputs":{},"expected_output":{"k":[1]},"metadata":{"m":null}}\r\n'),
      ).toEqual({
        rows: [{ inputs: { a: 1 } }, { inputs: {}, expected_output: { k: [1] }, metadata: { m: null } }],
        lines: [1, 4],
      });
      expect(rowsFromJsonl('')).toEqual({ rows: [], lines: [] });
    });

    it('refuses a line that is not JSON or not a row, naming it', () => {
      for (const [text, message] of [
        ['{"inputs":{}}\n{"inputs":', 'line 2 is not valid JSON'],
        ['\n\n"text"', 'line 3: a row must be an object {inputs, expected_output?, metadata?}'],
        ['{"inputs":{},"id":"x"}', 'line 1: id is not a field of a row (inputs, expected_output, metadata; and id in an update)'],
        ['{"expected_output":"x"}', 'line 1: inputs must be an object'],
      ] as const)
        expect(refusalOf(() => rowsFromJsonl(text))).toEqual({ status: 400, code: 'validation_error', message });
    });

    it('refuses text PostgreSQL cannot store', () => {
      expect(refusalOf(() => rowsFromJsonl('{"inputs":{"a":"\\u0000"}}'))).toMatchObject({ status: 422, code: 'validation_error' });
    });

    it('takes no column map', () => {
      expect(refusalOf(() => importRows('jsonl', '{"inputs":{}}', '{"a":"inputs.a"}')).message).toBe('columns applies to CSV imports only');
    });
  });
});
