import {
  RPC_CONTRACTS,
  type EmptyRequest,
  type RequestClass,
  type RpcContracts,
  type RpcKind,
  type RpcPattern,
  type RpcRequest,
  type RpcResponse,
} from '@waggle/contracts';
import type { Observable } from 'rxjs';

/** What a handler of the pattern may return: the response (or its promise), or a stream of events. */
export type RpcHandlerResult<P extends RpcPattern> = RpcContracts[P]['kind'] extends 'stream'
  ? Observable<RpcResponse<P>>
  : RpcResponse<P> | Promise<RpcResponse<P>>;

/** True only when both types are the same (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * `unknown` when the method fits the pattern's contract, otherwise an object type whose
 * (missing) property names the problem, so the compiler's message says what to fix.
 */
export type RpcHandlerMismatch<P extends RpcPattern, Method> = Method extends (...args: infer Args) => infer Result
  ? [Result] extends [RpcHandlerResult<P>]
    ? Args extends []
      ? RpcRequest<P> extends EmptyRequest
        ? unknown
        : { 'the handler must take the request': RpcRequest<P> }
      : Args extends [infer Request]
        ? Same<Request, RpcRequest<P>> extends true
          ? unknown
          : { 'the handler request type must be exactly': RpcRequest<P> }
        : { 'the handler takes one parameter, the request': RpcRequest<P> }
    : { 'the handler must return': RpcHandlerResult<P> }
  : { 'an RPC handler is a method': never };

/**
 * Makes a method the handler of a NATS pattern of the contract map: its request parameter
 * and result must be exactly the contract's types (checked by the compiler), and payloads are
 * validated against the contract's request class, whatever the parameter declares.
 *
 * This is the only way a service answers a pattern: `serveRpcHandlers` hands every such
 * method to `GracefulNatsServer.serve`, which gives each message its trace, request context,
 * deadline, metrics and error envelope (and a stream its heartbeats). Nest's RPC pipeline
 * (`@MessagePattern`, guards, interceptors, filters) is not used, and the lint refuses it on
 * service controllers.
 */
export function RpcHandler<P extends RpcPattern>(pattern: P) {
  const contract = RPC_CONTRACTS[pattern];
  if (!contract) throw new Error(`${pattern} is not in the RPC contract map`);
  return <Method>(
    target: object,
    key: string | symbol,
    _descriptor: TypedPropertyDescriptor<Method> & RpcHandlerMismatch<P, Method>,
  ): void => {
    registerRpcHandler(target.constructor, { pattern, key, kind: contract.kind, request: contract.request as RequestClass<unknown> });
  };
}

/** A handler method, as `@RpcHandler` recorded it on its class. */
export interface RpcHandlerMethod {
  pattern: string;
  key: string | symbol;
  kind: RpcKind;
  /** The class its payload is validated against; a test's pattern outside the contract map may take its payload as sent. */
  request?: RequestClass<unknown>;
}

/** Every class with `@RpcHandler` methods, and those methods. */
export const RPC_HANDLERS = new Map<object, RpcHandlerMethod[]>();

/**
 * `@RpcHandler` for a pattern outside the contract map (a test's own), served the same way.
 * Without `request` the payload reaches the method unvalidated.
 */
export function UncontractedRpcHandler(
  pattern: string,
  options: { kind?: RpcKind; request?: RequestClass<unknown> } = {},
): MethodDecorator {
  return (target, key) => registerRpcHandler(target.constructor, { pattern, key, kind: options.kind ?? 'reply', request: options.request });
}

function registerRpcHandler(owner: object, method: RpcHandlerMethod): void {
  const methods = RPC_HANDLERS.get(owner) ?? [];
  methods.push(method);
  RPC_HANDLERS.set(owner, methods);
}
