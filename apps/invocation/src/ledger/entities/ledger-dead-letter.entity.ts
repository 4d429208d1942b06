import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A ledger record that could not be written (PostgreSQL refused it by itself) or published
 * (its publisher gave up on it), kept for an operator to list and replay
 * (`invocation.dead-letters.*`). Every column is plain text or a number, with no constraint a
 * record could break, so a dead letter itself is always writable.
 */
@Entity({ name: 'ledger_dead_letters' })
@Index('IDX_ledger_dead_letters_waiting', ['createdAt'], { where: '"replayed_at" IS NULL' })
export class LedgerDeadLetterEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** As the record named them (text: a malformed id may be why it failed). */
  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ name: 'workspace_id', type: 'text', nullable: true })
  workspaceId!: string | null;

  /**
   * The record as JSON text, as it came. Text, not jsonb: jsonb refuses some values (a
   * `\u0000` escape) which may be exactly why the record failed.
   */
  @Column({ type: 'text' })
  record!: string;

  /** The record was cut to a bound by its publisher: kept to be read, never replayed. */
  @Column({ type: 'boolean', default: false })
  truncated!: boolean;

  /** Why it failed the last time (a replay that fails again replaces it). */
  @Column({ type: 'text' })
  error!: string;

  /** Attempts made before it was dead-lettered, replays included. */
  @Column({ type: 'integer', default: 1 })
  attempts!: number;

  /** `ledger-writer` (the owner's consumer), or the app whose publisher gave up on it. */
  @Column({ name: 'dead_lettered_by', type: 'text' })
  deadLetteredBy!: string;

  /** The ledger stream message it arrived in. */
  @Column({ name: 'stream_seq', type: 'bigint' })
  streamSeq!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** When a replay wrote it to the ledger; it is no longer listed then. */
  @Column({ name: 'replayed_at', type: 'timestamptz', nullable: true })
  replayedAt!: Date | null;
}
