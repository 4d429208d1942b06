import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ListRequestsRequest, PromptTriggerJob, RequestLookup } from '@waggle/contracts';
import { PromptTriggerQueue } from '@waggle/webhooks';
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

function acceptedTriggerLookup(trigger: PromptTriggerJob): RequestLookup {
  return {
    request_id: trigger.request_id,
    status: 'running',
    request_type: 'prompt',
    requestable_type: 'prompt_deployment',
    requestable_id: trigger.prompt_endpoint_id,
    message: null,
    metadata: trigger.metadata,
    generated_at: trigger.accepted_at,
    started_at: null,
    ended_at: null,
    data: null,
  };
}

@Injectable()
export class RequestsService {
  private readonly logger = new Logger(RequestsService.name);

  constructor(
    @InjectRepository(RequestRecordEntity) private readonly records: Repository<RequestRecordEntity>,
    private readonly ledger: LedgerWriter,
    private readonly triggers: PromptTriggerQueue,
  ) {}

  async list(query: ListRequestsRequest): Promise<RequestLookup[]> {
    await this.ledger.flush();
    const builder = this.records
      .createQueryBuilder('request')
      .where('request.workspace_id = :workspace', { workspace: query.workspace_id })
      .orderBy('request.generated_at', 'DESC')
      .limit(query.limit ?? 100);
    if (query.from) builder.andWhere('request.generated_at >= :from', { from: query.from });
    if (query.to) builder.andWhere('request.generated_at < :to', { to: query.to });
    if (query.metadata_key !== undefined) {
      const key = query.metadata_key;
      if (query.metadata_value === undefined) builder.andWhere('request.metadata ? :key', { key });
      else {
        const matches = metadataCandidates(query.metadata_value).map((value) => JSON.stringify({ [key]: value }));
        builder.andWhere(`(${matches.map((_, index) => `request.metadata @> :match${index}::jsonb`).join(' OR ')})`, Object.fromEntries(matches.map((match, index) => [`match${index}`, match])));
      }
    }
    return (await builder.getMany()).map(toRequestLookup);
  }

  /** The workspace's own request only: another workspace's id is simply not found. */
  async get(workspaceId: string, requestId: string): Promise<RequestLookup> {
    const record = this.ledger.pendingRecord(requestId) ?? (await this.records.findOneBy({ id: requestId }));
    if (record?.workspaceId === workspaceId) return toRequestLookup(record);
    // A webhook trigger accepted but not yet picked up by a worker has no record yet.
    const accepted = record ? null : await this.acceptedTrigger(requestId);
    if (accepted?.workspace_id === workspaceId) return acceptedTriggerLookup(accepted);
    throw new WaggleException('not_found', { message: 'Request not found' });
  }

  private async acceptedTrigger(requestId: string): Promise<PromptTriggerJob | null> {
    try {
      return await this.triggers.pending(requestId);
    } catch (error) {
      this.logger.warn({ err: error }, 'the prompt-runs queue could not be read');
      throw new WaggleException('upstream_request_failed', { status: 503, message: 'The request could not be looked up. Retry shortly.' });
    }
  }
}

/** The values a query-string metadata value may stand for: the string itself, or what it reads as. */
export function metadataCandidates(raw: string): Array<string | number | boolean> {
  const candidates: Array<string | number | boolean> = [raw];
  if (raw === 'true' || raw === 'false') candidates.push(raw === 'true');
  else if (raw.trim() !== '' && Number.isFinite(Number(raw))) candidates.push(Number(raw));
  return candidates;
}
