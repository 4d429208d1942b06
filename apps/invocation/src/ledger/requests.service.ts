import { Injectable } from '@nestjs/common';
import {
  TERMINAL_RUN_STATUSES,
  type LedgerRecord,
  type ListRequestsRequest,
  type RequestListItem,
  type RequestRecordView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { LedgerPublisher } from '@waggle/runs';
import { LedgerConsumer } from './ledger-consumer';
import { toRequestListItem, toRequestRecordView } from './ledger-records';
import { RequestsRepository } from './requests.repository';

/** The request ledger's reads: one run by id, and a workspace's runs by filter. */
@Injectable()
export class RequestsService {
  constructor(
    private readonly requests: RequestsRepository,
    private readonly publisher: LedgerPublisher,
    private readonly consumer: LedgerConsumer,
  ) {}

  /** The workspace's own request only: another workspace's id is simply not found. */
  async get(workspaceId: string, requestId: string): Promise<RequestRecordView> {
    const record = await this.find(requestId);
    if (record?.workspace_id !== workspaceId) throw new WaggleException('not_found', { detail: 'request_not_found' });
    return toRequestRecordView(record);
  }

  async list(query: ListRequestsRequest): Promise<RequestListItem[]> {
    // What this replica recorded, and what was published before the question, is in the answer.
    await this.publisher.flush();
    await this.consumer.caughtUp();
    return (await this.requests.list(query)).map(toRequestListItem);
  }

  /**
   * A run's latest record: this replica's own not yet stored, else the table's. When the table
   * has none, or a state that may since have moved on, the stream's earlier batches are
   * written first (another replica or service may have just published it).
   */
  async find(requestId: string): Promise<LedgerRecord | null> {
    const own = this.publisher.pendingRecord(requestId);
    if (own) return own;
    const stored = await this.requests.findById(requestId);
    if (stored && TERMINAL_RUN_STATUSES.includes(stored.status)) return stored;
    if (!(await this.consumer.caughtUp())) return stored;
    return this.publisher.pendingRecord(requestId) ?? (await this.requests.findById(requestId));
  }
}
