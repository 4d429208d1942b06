import type { LedgerRecord } from '@waggle/contracts';
import { costOf, crossingsOf, endedRuns, usedTokens } from './governance-reconciler';

const record = (overrides: Partial<LedgerRecord>): LedgerRecord =>
  ({ request_id: 'r1', workspace_id: 'w1', status: 'completed', ...overrides }) as LedgerRecord;

describe('what reconciliation reads from ledger records', () => {
  it('settles ended runs only, each once per batch at its last state', () => {
    const runs = endedRuns([
      record({ request_id: 'a', status: 'running' }),
      record({ request_id: 'b', status: 'completed', cost_micros: 1 }),
      record({ request_id: 'b', status: 'completed', cost_micros: 2 }),
      record({ request_id: 'c', status: 'failed' }),
      record({ request_id: 'd', status: 'cancelled' }),
      record({ request_id: 'e', status: 'queued' }),
    ]);
    expect(runs.map((run) => [run.request_id, run.cost_micros])).toEqual([
      ['b', 2],
      ['c', undefined],
      ['d', undefined],
    ]);
  });

  it('reads the real tokens and a usable cost, or says they are unknown', () => {
    expect(usedTokens({ total_tokens: 42 })).toBe(42);
    expect(usedTokens({ total_tokens: '42' })).toBe(-1);
    expect(usedTokens(null)).toBe(-1);
    expect(costOf(record({ cost_micros: 0 }))).toBe(0);
    expect(costOf(record({ cost_micros: 12.5 }))).toBeUndefined();
    expect(costOf(record({ cost_micros: -1 }))).toBeUndefined();
    expect(costOf(record({ cost_micros: null }))).toBeUndefined();
  });

  it("turns the script's answer into crossings: 100% and over is budget.exceeded", () => {
    const at = '2026-11-21T12:00:00.000Z';
    const reply = [
      1,
      'b1',
      'workspace',
      '',
      'day',
      'd20261121',
      '80',
      8_000,
      10_000,
      'b2',
      'api_key',
      'k1',
      'month',
      'm202611',
      '100',
      50,
      50,
    ];
    expect(crossingsOf(record({}), reply, at)).toEqual([
      expect.objectContaining({
        budget_id: 'b1',
        scope: 'workspace',
        scope_id: null,
        threshold: 80,
        event: 'budget.threshold_crossed',
        spent_micros: 8_000,
      }),
      expect.objectContaining({
        budget_id: 'b2',
        scope: 'api_key',
        scope_id: 'k1',
        period: 'month',
        threshold: 100,
        event: 'budget.exceeded',
      }),
    ]);
    expect(crossingsOf(record({}), [1], at)).toEqual([]);
  });
});
