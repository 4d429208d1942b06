import type { HealthPingPattern, HealthPingRequest, HealthPingResponse } from './health.patterns';

/** A request/reply pattern's payload and answer types, inseparable at the call site. */
export interface RpcContract<Request, Response> {
  request: Request;
  response: Response;
}

/**
 * Every NATS pattern and its types. A pattern missing here cannot be sent through
 * `sendRpc`, and a payload or response of the wrong type does not compile.
 */
export type RpcContracts = {
  [P in HealthPingPattern]: RpcContract<HealthPingRequest, HealthPingResponse>;
};

export type RpcPattern = keyof RpcContracts;
export type RpcRequest<P extends RpcPattern> = RpcContracts[P]['request'];
export type RpcResponse<P extends RpcPattern> = RpcContracts[P]['response'];
