import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LedgerDeadLetterEntity } from './ledger-dead-letter.entity';

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

@Injectable()
export class LedgerDeadLettersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(drafts: LedgerDeadLetterDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    await this.dataSource.getRepository(LedgerDeadLetterEntity).insert(
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
    return this.dataSource
      .getRepository(LedgerDeadLetterEntity)
      .createQueryBuilder('letter')
      .where('letter.replayed_at IS NULL')
      .orderBy('letter.created_at', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** A dead letter not replayed yet (an id that is not a UUID is none). */
  async findWaiting(id: string): Promise<LedgerDeadLetterEntity | null> {
    if (!UUID.test(id)) return null;
    return this.dataSource
      .getRepository(LedgerDeadLetterEntity)
      .createQueryBuilder('letter')
      .where('letter.id = :id AND letter.replayed_at IS NULL', { id })
      .getOne();
  }

  async markReplayed(id: string): Promise<void> {
    await this.dataSource
      .getRepository(LedgerDeadLetterEntity)
      .update({ id }, { replayedAt: () => 'now()', attempts: () => 'attempts + 1' });
  }

  /** A replay that failed again: the dead letter stays, with the new error. */
  async replayFailed(id: string, error: string): Promise<void> {
    await this.dataSource
      .getRepository(LedgerDeadLetterEntity)
      .update({ id }, { error: storableText(error), attempts: () => 'attempts + 1' });
  }
}
