import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql } from '@waggle/database';
import { IsNull, type DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { LedgerDeadLetterEntity } from './entities/ledger-dead-letter.entity';

/** What the consumer (or a publisher) decided is a dead letter, before it is stored. */
export interface LedgerDeadLetterDraft {
  requestId: string | null;
  workspaceId: string | null;
  record: string;
  truncated: boolean;
  error: string;
  attempts: number;
  deadLetteredBy: string;
  streamSeq: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * PostgreSQL text cannot hold U+0000, whatever else it holds. The record is JSON text, where
 * NUL only appears escaped; an error message or a raw unreadable message may hold it bare.
 */
function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

const TABLE = `"${SCHEMA}"."ledger_dead_letters"`;

const SQL = defineSql(__filename, {
  markReplayed: sql(`UPDATE ${TABLE} SET "replayed_at" = now(), "attempts" = "attempts" + 1 WHERE "id" = $1`),
  replayFailed: sql(`UPDATE ${TABLE} SET "error" = $2, "attempts" = "attempts" + 1 WHERE "id" = $1`),
});

/** Every query of the request ledger's dead letters (`ledger_dead_letters`). */
@Injectable()
export class LedgerDeadLettersRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  async insert(drafts: LedgerDeadLetterDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    await this.table(LedgerDeadLetterEntity).insert(
      drafts.map((draft) => ({
        requestId: draft.requestId === null ? null : storableText(draft.requestId),
        workspaceId: draft.workspaceId === null ? null : storableText(draft.workspaceId),
        record: storableText(draft.record),
        truncated: draft.truncated,
        error: storableText(draft.error),
        attempts: draft.attempts,
        deadLetteredBy: storableText(draft.deadLetteredBy),
        streamSeq: String(draft.streamSeq),
      })),
    );
  }

  /** The ones not replayed yet, newest first. */
  waiting(limit: number): Promise<LedgerDeadLetterEntity[]> {
    return this.table(LedgerDeadLetterEntity).find({ where: { replayedAt: IsNull() }, order: { createdAt: 'DESC' }, take: limit });
  }

  /** A dead letter not replayed yet (an id that is not a UUID is none). */
  async findWaiting(id: string): Promise<LedgerDeadLetterEntity | null> {
    if (!UUID.test(id)) return null;
    return this.table(LedgerDeadLetterEntity).findOneBy({ id, replayedAt: IsNull() });
  }

  async markReplayed(id: string): Promise<void> {
    await this.execute(SQL.markReplayed, [id]);
  }

  /** A replay that failed again: the dead letter stays, with the new error. */
  async replayFailed(id: string, error: string): Promise<void> {
    await this.execute(SQL.replayFailed, [id, storableText(error)]);
  }
}
