import { Module } from '@nestjs/common';
import { ThreadsRepository } from './threads.repository';

/** Agent threads: each run of a thread reads its stored turns and appends its own (ThreadsRepository). */
@Module({
  providers: [ThreadsRepository],
  exports: [ThreadsRepository],
})
export class ThreadsModule {}
