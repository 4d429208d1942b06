import { Module } from '@nestjs/common';
import { RunLifecycleModule } from '@waggle/runs';
import { GovernanceModule } from '../governance/governance.module';
import { LedgerConsumer } from './ledger-consumer';
import { LedgerDeadLetters } from './ledger-dead-letters';
import { LedgerDeadLettersRepository } from './ledger-dead-letters.repository';
import { RequestsController } from './requests.controller';
import { RequestsRepository } from './requests.repository';
import { RequestsService } from './requests.service';

/**
 * The request ledger of every run kind (prompt, agent, workflow): this service owns its
 * table, writes it from the ledger stream every service publishes to, answers lookups, and
 * keeps the records that could not be written as dead letters.
 */
@Module({
  // The publisher (lookups answer this replica's own records first) and the run event log.
  imports: [RunLifecycleModule, GovernanceModule],
  controllers: [RequestsController],
  providers: [RequestsRepository, LedgerDeadLettersRepository, LedgerConsumer, RequestsService, LedgerDeadLetters],
  exports: [RequestsService, LedgerDeadLetters],
})
export class LedgerModule {}
