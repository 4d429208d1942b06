/** A request DTO class: class-validator decorators on its properties describe a valid payload. */
export type RequestClass<Request> = new () => Request;

/** `reply`: one answer per request. `stream`: a sequence of values, then completion. */
export type RpcKind = 'reply' | 'stream';

/**
 * How long a caller waits for a reply when the contract declares no time-out of its own and the
 * caller's transport sets no default (the gateway's is NATS_REQUEST_TIMEOUT_MS), ms.
 */
export const DEFAULT_RPC_TIMEOUT_MS = 10_000;
/** Patterns an operator's tooling calls (listings, applies, secrets), which may read a lot. */
export const PRIVATE_RPC_TIMEOUT_MS = 30_000;
/** A sync run's wait (decisions: 300 s), and a streamed run's longest silence between events. */
export const SYNC_RUN_TIMEOUT_MS = 300_000;

/**
 * One NATS pattern with everything both sides need: its name (wire format), the class that
 * validates its payload, whether it answers once or streams, how long its caller waits, and
 * (in the type only) what it answers. The sender (`send`) and the handler (`@RpcHandler`) are
 * both typed from this one object, so they cannot disagree; the wait travels with each reply
 * request as its deadline (RpcHeaders.deadline), so the service knows it too.
 */
export interface RpcContract<Pattern extends string = string, Request = unknown, Response = unknown, Kind extends RpcKind = RpcKind> {
  readonly pattern: Pattern;
  readonly request: RequestClass<Request>;
  readonly kind: Kind;
  /**
   * How long the caller waits (ms): for a reply, the whole answer (sent as the request's
   * deadline); for a stream, the first event and then each gap between events. Absent: the
   * transport's default (RpcTransport.defaultTimeoutMs), else DEFAULT_RPC_TIMEOUT_MS.
   */
  readonly timeoutMs?: number;
  /** Never set: carries the response type. */
  readonly response?: Response;
}

/**
 * `rpc('catalog.models.route', ModelIdRequest).returns<ModelRoute>()`, or `.streams<Event>()`
 * for a pattern that answers with a stream of events; `{ timeoutMs }` when its caller waits
 * longer (or shorter) than an ordinary request.
 */
export function rpc<Pattern extends string, Request>(
  pattern: Pattern,
  request: RequestClass<Request>,
  { timeoutMs }: { timeoutMs?: number } = {},
) {
  const wait = timeoutMs === undefined ? {} : { timeoutMs };
  return {
    returns: <Response>(): RpcContract<Pattern, Request, Response, 'reply'> => ({ pattern, request, kind: 'reply', ...wait }),
    streams: <Event>(): RpcContract<Pattern, Request, Event, 'stream'> => ({ pattern, request, kind: 'stream', ...wait }),
  };
}

/** The payload of a pattern that takes none: an object without properties. */
export class EmptyRequest {
  [key: string]: never;
}

/** A service's contracts by a readable name, e.g. `{ routeModel: rpc('catalog.models.route', …) }`. */
export type ContractMap = Readonly<Record<string, RpcContract>>;

/** `{ routeModel: 'catalog.models.route', … }`: the pattern names of a contract map. */
export function patternNames<Map extends ContractMap>(contracts: Map): { readonly [Name in keyof Map]: Map[Name]['pattern'] } {
  return Object.fromEntries(Object.entries(contracts).map(([name, contract]) => [name, contract.pattern])) as {
    readonly [Name in keyof Map]: Map[Name]['pattern'];
  };
}

/** A contract map re-keyed by pattern name. */
export type ContractsByPattern<Map extends ContractMap> = { [Name in keyof Map as Map[Name]['pattern']]: Map[Name] };
