import 'reflect-metadata';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { ListLimit } from './common.dto';
import { QueueNames, type QueueName } from './queues';
import { patternNames, rpc, type RpcContract } from './rpc-contract';
import type { DomainService } from './services';

/**
 * Where dead letters are kept, by the service that owns them: the failed set of each queue its
 * workers consume (BullMQ keeps failed jobs 30 days: the dead-letter queue) and, for
 * invocation, the request ledger's dead-letter table. Source names are wire format (the CLI's
 * `--source`); a queue's is its name.
 */
export const DEAD_LETTER_SOURCES_BY_OWNER = {
  invocation: ['ledger', QueueNames.promptRuns, QueueNames.workflowRuns, QueueNames.experimentCells],
  agent: [QueueNames.agentRuns],
  'knowledge-base': [QueueNames.knowledgeBaseIngest, QueueNames.knowledgeBaseCleanup],
  'callback-dispatcher': [QueueNames.callbacks],
} as const satisfies Partial<Record<DomainService, readonly string[]>>;

export type DeadLetterOwner = keyof typeof DEAD_LETTER_SOURCES_BY_OWNER;
export type DeadLetterSourceName = (typeof DEAD_LETTER_SOURCES_BY_OWNER)[DeadLetterOwner][number];

export const DEAD_LETTER_OWNERS = Object.keys(DEAD_LETTER_SOURCES_BY_OWNER) as DeadLetterOwner[];
export const DEAD_LETTER_SOURCES: readonly DeadLetterSourceName[] = Object.values(DEAD_LETTER_SOURCES_BY_OWNER).flat();

/** Compiles only while every queue has an owner above: a new queue's failed jobs cannot go unlisted. */
const everyQueueHasAnOwner: [Exclude<QueueName, DeadLetterSourceName>] extends [never] ? true : never = true;
void everyQueueHasAnOwner;

export function ownerOfDeadLetterSource(source: DeadLetterSourceName): DeadLetterOwner {
  return DEAD_LETTER_OWNERS.find((owner) => (DEAD_LETTER_SOURCES_BY_OWNER[owner] as readonly string[]).includes(source)) as DeadLetterOwner;
}

/** A listed dead letter's `payload` and `error` are cut to this many characters (a NATS reply holds 1 MiB). */
export const DEAD_LETTER_PREVIEW_CHARS = 2_000;

/** Dead letters waiting for an operator, newest first: every source of the owner, or one. */
export class ListDeadLettersRequest extends ListLimit {
  @IsOptional()
  @IsIn(DEAD_LETTER_SOURCES)
  source?: DeadLetterSourceName;
}

export class ReplayDeadLetterRequest {
  @IsIn(DEAD_LETTER_SOURCES)
  source!: DeadLetterSourceName;

  /** A failed job's id, or a ledger dead letter's. */
  @IsString()
  @Length(1, 200)
  id!: string;
}

export interface DeadLetterSummary {
  source: DeadLetterSourceName;
  /** What `replay` takes: the failed job's id, or the ledger dead letter's (a UUID). */
  id: string;
  request_id: string | null;
  workspace_id: string | null;
  /** Why it failed the last time (cut to DEAD_LETTER_PREVIEW_CHARS). */
  error: string;
  /** Attempts made before it was dead-lettered. */
  attempts: number;
  dead_lettered_at: string;
  /** What failed, as JSON text: the job's data or the ledger record (cut to DEAD_LETTER_PREVIEW_CHARS). */
  payload: string;
}

/**
 * requeued: the failed job runs again with a fresh attempt budget (its delivery, for a
 * callback). written: the ledger record is stored now. failed: the ledger record was refused
 * again and stays dead-lettered with this new error.
 */
export const DEAD_LETTER_REPLAY_OUTCOMES = ['requeued', 'written', 'failed'] as const;
export type DeadLetterReplayOutcome = (typeof DEAD_LETTER_REPLAY_OUTCOMES)[number];

export interface DeadLetterReplay {
  source: DeadLetterSourceName;
  id: string;
  outcome: DeadLetterReplayOutcome;
  error: string | null;
}

export type DeadLetterListPattern<O extends DeadLetterOwner = DeadLetterOwner> = `${O}.dead-letters.list`;
export type DeadLetterReplayPattern<O extends DeadLetterOwner = DeadLetterOwner> = `${O}.dead-letters.replay`;

/**
 * `<owner>.dead-letters.list` and `.replay`: one pair per owning service, each served by the
 * platform's one dead-letter controller over that service's sources (as every service answers
 * its `<service>.health.ping`), and asked by the operator CLI.
 */
export const DeadLetterListContracts = Object.fromEntries(
  DEAD_LETTER_OWNERS.map((owner) => [owner, rpc(`${owner}.dead-letters.list`, ListDeadLettersRequest).returns<DeadLetterSummary[]>()]),
) as { readonly [O in DeadLetterOwner]: RpcContract<DeadLetterListPattern<O>, ListDeadLettersRequest, DeadLetterSummary[], 'reply'> };

export const DeadLetterReplayContracts = Object.fromEntries(
  DEAD_LETTER_OWNERS.map((owner) => [owner, rpc(`${owner}.dead-letters.replay`, ReplayDeadLetterRequest).returns<DeadLetterReplay>()]),
) as { readonly [O in DeadLetterOwner]: RpcContract<DeadLetterReplayPattern<O>, ReplayDeadLetterRequest, DeadLetterReplay, 'reply'> };

export const DeadLetterPatterns = {
  list: patternNames(DeadLetterListContracts),
  replay: patternNames(DeadLetterReplayContracts),
} as const;
