import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { RequestLookup } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { Repository } from 'typeorm';
import { LedgerWriter } from './ledger-writer';
import { RequestRecordEntity } from './request-record.entity';

export function toRequestLookup(record: RequestRecordEntity): RequestLookup {
  return {
    request_id: record.id,
    status: record.status,
    request_type: record.requestType,
    requestable_type: record.requestableType,
    requestable_id: record.requestableId,
    message: record.message,
    metadata: record.metadata,
    generated_at: record.generatedAt.toISOString(),
    started_at: record.startedAt?.toISOString() ?? null,
    ended_at: record.endedAt?.toISOString() ?? null,
    data: record.data,
  };
}

@Injectable()
export class RequestsService {
  constructor(
    @InjectRepository(RequestRecordEntity) private readonly records: Repository<RequestRecordEntity>,
    private readonly ledger: LedgerWriter,
  ) {}

  /** The workspace's own request only: another workspace's id is simply not found. */
  async get(workspaceId: string, requestId: string): Promise<RequestLookup> {
    const record = this.ledger.pendingRecord(requestId) ?? (await this.records.findOneBy({ id: requestId }));
    if (!record || record.workspaceId !== workspaceId) throw new WaggleException('not_found', { message: 'Request not found' });
    return toRequestLookup(record);
  }
}
