import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { CreditEntryKind } from '@waggle/contracts';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { CreditEntryEntity } from './entities/credit-entry.entity';

const SQL = defineSql(__filename, {
  /** Every entry less every hosted run's cost: the balance when Redis holds none. */
  balance: sql<{ balance: string }>(`
    SELECT (
      COALESCE((SELECT SUM("amount_micros") FROM "${SCHEMA}"."credit_entries" WHERE "workspace_id" = $1), 0)
      - COALESCE((SELECT SUM("cost_micros") FROM "${SCHEMA}"."requests" WHERE "workspace_id" = $1 AND "credentials" = 'hosted'), 0)
    )::text AS "balance"`),
});

/** The hosted credit ledger (append-only) and the balance computed from it and the hosted runs' costs. */
@Injectable()
export class CreditsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  insert(values: { workspaceId: string; amountMicros: number; kind: CreditEntryKind; note: string | null }): Promise<CreditEntryEntity> {
    const entries = this.table(CreditEntryEntity);
    return entries.save(entries.create(values));
  }

  /** The latest entries, newest first. */
  latest(workspaceId: string, take: number): Promise<CreditEntryEntity[]> {
    return this.table(CreditEntryEntity).find({ where: { workspaceId }, order: { createdAt: 'DESC', id: 'DESC' }, take });
  }

  async computedBalance(workspaceId: string): Promise<number> {
    const row = await this.row(SQL.balance, [workspaceId]);
    return Number(row?.balance ?? 0);
  }
}
