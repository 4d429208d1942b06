import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { BudgetChanges, BudgetDefinition, RateLimitDefinition, scopeIdProblem, SpendFilter } from './governance-admin';

/** The properties a body fails on (nested ones as `parent.child`). */
function failures<T extends object>(cls: new () => T, body: unknown): string[] {
  return validateSync(plainToInstance(cls, body) as object, { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property);
}

describe('usage governance administration: bodies (the spec’s decisions on usage governance)', () => {
  it('takes a scope id by its scope: none for the workspace, a key’s UUID, a user label of 1 to 256 characters', () => {
    expect(scopeIdProblem('workspace', undefined)).toBeNull();
    expect(scopeIdProblem('workspace', null)).toBeNull();
    expect(scopeIdProblem('workspace', 'x')).toEqual({ detail: 'scope_id_workspace' });
    expect(scopeIdProblem('api_key', '0b6f7c1e-4a53-4f3e-9d83-0b9a4c1d2e3f')).toBeNull();
    expect(scopeIdProblem('api_key', 'wgl_prefix')).toEqual({ detail: 'scope_id_api_key' });
    expect(scopeIdProblem('user', 'ann')).toBeNull();
    for (const label of ['', 'x'.repeat(257), 7])
      expect(scopeIdProblem('user', label)).toEqual({ detail: 'scope_id_user', params: { max: 256 } });
  });

  it('accepts a budget with its defaults and refuses each bad field', () => {
    expect(failures(BudgetDefinition, { scope: 'workspace', period: 'month', limit_micros: 1 })).toEqual([]);
    expect(
      failures(BudgetDefinition, {
        scope: 'user',
        scope_id: 'ann',
        period: 'day',
        limit_micros: 5,
        thresholds: [50, 100, 150],
        alert_url: 'https://example.com/h',
      }),
    ).toEqual([]);
    expect(failures(BudgetDefinition, { scope: 'team', period: 'month', limit_micros: 1 })).toEqual(['scope']);
    expect(failures(BudgetDefinition, { scope: 'user', period: 'week', limit_micros: 1 })).toEqual(['scope_id', 'period']);
    expect(failures(BudgetDefinition, { scope: 'workspace', period: 'day', limit_micros: 0 })).toEqual(['limit_micros']);
    expect(failures(BudgetDefinition, { scope: 'workspace', period: 'day', limit_micros: 1.5 })).toEqual(['limit_micros']);
    expect(failures(BudgetDefinition, { scope: 'workspace', period: 'day', limit_micros: 2 ** 53 })).toEqual(['limit_micros']);
    for (const thresholds of [[], [0], [1001], [80, 80], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], ['80'], 80])
      expect(failures(BudgetDefinition, { scope: 'workspace', period: 'day', limit_micros: 1, thresholds })).toEqual(['thresholds']);
    expect(failures(BudgetDefinition, { scope: 'workspace', period: 'day', limit_micros: 1, extra: 1 })).toEqual(['extra']);
  });

  it('lets an update unset the alert URL but not change scope or period', () => {
    expect(failures(BudgetChanges, { alert_url: null })).toEqual([]);
    expect(failures(BudgetChanges, { limit_micros: null })).toEqual(['limit_micros']);
    expect(failures(BudgetChanges, { scope: 'user' })).toEqual(['scope']);
  });

  it('takes a rate limit of a key or a user, rates whole and positive (the one-rate rule is the service’s)', () => {
    expect(failures(RateLimitDefinition, { scope: 'user', scope_id: 'ann', requests_per_minute: 60 })).toEqual([]);
    expect(failures(RateLimitDefinition, { scope: 'workspace', scope_id: 'ann', tokens_per_minute: 1 })).toEqual(['scope', 'scope_id']);
    expect(failures(RateLimitDefinition, { scope: 'user', scope_id: 'ann', requests_per_minute: 0 })).toEqual(['requests_per_minute']);
    expect(failures(RateLimitDefinition, { scope: 'api_key', scope_id: 'ann', tokens_per_minute: 1e10 })).toEqual([
      'scope_id',
      'tokens_per_minute',
    ]);
  });

  it('reads spend filters as UTC dates and known groups', () => {
    expect(failures(SpendFilter, { group_by: 'model', from: '2026-11-01', to: '2026-11-30' })).toEqual([]);
    expect(failures(SpendFilter, { group_by: 'hour', from: '2026-13-01', to: '1 Nov' })).toEqual(['group_by', 'from', 'to']);
  });
});
