import { Controller } from '@nestjs/common';
import {
  InvocationPatterns,
  ListRequestsRequest,
  RequestEventsRequest,
  RequestLookupRequest,
  type RequestListItem,
  type RequestRecordView,
  type RunEventView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RUN_LOG_IDLE, RunEventLog } from '@waggle/runs';
import { Observable } from 'rxjs';
import { RequestsService } from './requests.service';

/** How often a follower of a quiet run hears that it still goes on (the RPC's own heartbeats carry it). */
const IDLE_MS = 15_000;

@Controller()
export class RequestsController {
  constructor(
    private readonly requests: RequestsService,
    private readonly runEvents: RunEventLog,
  ) {}

  @RpcHandler(InvocationPatterns.getRequest)
  lookup(request: RequestLookupRequest): Promise<RequestRecordView> {
    return this.requests.get(request.workspace_id, request.request_id);
  }

  /** The operator's `request events`: what the gateway's events route replays, over NATS. */
  @RpcHandler(InvocationPatterns.requestEvents)
  events(request: RequestEventsRequest): Observable<RunEventView> {
    return new Observable<RunEventView>((subscriber) => {
      const stop = new AbortController();
      const follow = async () => {
        await this.runEvents.keptFor(request.request_id, request.workspace_id, () =>
          this.requests.get(request.workspace_id, request.request_id),
        );
        for await (const entry of this.runEvents.entries(request.request_id, request.after ?? 0, {
          signal: stop.signal,
          idleMs: IDLE_MS,
        })) {
          if (entry === RUN_LOG_IDLE) continue;
          if ('end' in entry) return;
          subscriber.next({ seq: entry.seq, event: entry.event });
        }
      };
      follow().then(
        () => subscriber.complete(),
        (error: unknown) => subscriber.error(error),
      );
      return () => stop.abort();
    });
  }

  @RpcHandler(InvocationPatterns.listRequests)
  list(query: ListRequestsRequest): Promise<RequestListItem[]> {
    return this.requests.list(query);
  }
}
