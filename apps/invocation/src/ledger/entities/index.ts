import { LedgerDeadLetterEntity } from './ledger-dead-letter.entity';
import { RequestRecordEntity } from './request-record.entity';

export const LEDGER_ENTITIES = [RequestRecordEntity, LedgerDeadLetterEntity];
