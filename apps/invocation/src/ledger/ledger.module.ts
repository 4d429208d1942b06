import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LedgerConsumer } from './ledger-consumer';
import { LEDGER_ENTITIES } from './request-record.entity';
import { RequestsController } from './requests.controller';
import { RequestsRepository } from './requests.repository';
import { RequestsService } from './requests.service';

/**
 * The request ledger of every run kind (prompt, agent, workflow): this service owns its
 * table, writes it from the ledger stream every service publishes to, and answers lookups.
 */
@Module({
  imports: [TypeOrmModule.forFeature(LEDGER_ENTITIES)],
  controllers: [RequestsController],
  providers: [RequestsRepository, LedgerConsumer, RequestsService],
  exports: [RequestsService],
})
export class LedgerModule {}
