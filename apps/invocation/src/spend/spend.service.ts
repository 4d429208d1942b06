import { Injectable } from '@nestjs/common';
import { MAX_SPEND_RANGE_DAYS, type SpendFilter, type SpendView } from '@waggle/contracts';
import { invalidGovernanceField } from '../governance-projection/governance-checks';
import { SpendRepository } from './spend.repository';

const DAY_MS = 24 * 3600 * 1000;

/** A `YYYY-MM-DD` as the UTC midnight starting it, or a 422 when no such day exists (2026-02-30). */
function utcDay(field: 'from' | 'to', value: string): Date {
  const day = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value)
    throw invalidGovernanceField(field, { detail: 'spend_date_invalid', params: { field, value } });
  return day;
}

/** The default range: the current UTC month, first to last day. */
export function currentMonth(now: Date): { from: string; to: string } {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

/** Spend of a workspace from the request ledger, per day, model, API key or end user. */
@Injectable()
export class SpendService {
  constructor(private readonly spend: SpendRepository) {}

  async read(workspaceId: string, filter: SpendFilter, now: Date = new Date()): Promise<SpendView> {
    const month = currentMonth(now);
    const from = filter.from ?? month.from;
    const to = filter.to ?? month.to;
    const start = utcDay('from', from);
    const end = new Date(utcDay('to', to).getTime() + DAY_MS);
    if (end <= start || end.getTime() - start.getTime() > MAX_SPEND_RANGE_DAYS * DAY_MS)
      throw invalidGovernanceField('from', { detail: 'spend_range_invalid', params: { max: MAX_SPEND_RANGE_DAYS } });
    const groupBy = filter.group_by ?? 'day';
    const groups = await this.spend.grouped(workspaceId, groupBy, start, end);
    return {
      group_by: groupBy,
      from,
      to,
      total_cost_micros: groups.reduce((sum, group) => sum + group.cost_micros, 0),
      total_runs: groups.reduce((sum, group) => sum + group.runs, 0),
      groups,
    };
  }
}
