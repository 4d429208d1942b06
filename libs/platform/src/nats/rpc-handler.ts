import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  EmptyRequest,
  RPC_CONTRACTS,
  type RequestClass,
  type RpcContracts,
  type RpcPattern,
  type RpcRequest,
  type RpcResponse,
} from '@waggle/contracts';
import type { Observable } from 'rxjs';
import { createPayloadPipe } from './validation';

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
 */
export function RpcHandler<P extends RpcPattern>(pattern: P) {
  const contract = RPC_CONTRACTS[pattern];
  if (!contract) throw new Error(`${pattern} is not in the RPC contract map`);
  return <Method>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<Method> & RpcHandlerMismatch<P, Method>,
  ): void => {
    MessagePattern(pattern)(target, key, descriptor);
    ValidatedPayload(contract.request as RequestClass<unknown>)(target, key, 0);
    if (contract.kind === 'reply')
      registerReplyHandler(target.constructor, { pattern, key, request: contract.request as RequestClass<unknown> });
  };
}

/** A reply pattern's handler method, as `@RpcHandler` recorded it on its class. */
export interface ReplyHandlerMethod {
  pattern: string;
  key: string | symbol;
  request: RequestClass<unknown>;
}

/**
 * Every class with `@RpcHandler` methods of reply patterns. The service app serves those
 * patterns straight from the NATS subscription (see `GracefulNatsServer.serveDirectly`),
 * outside Nest's RPC pipeline; stream patterns stay on Nest's.
 */
export const REPLY_HANDLERS = new Map<object, ReplyHandlerMethod[]>();

/**
 * The payload parameter, validated against a request class. `@RpcHandler` applies it; a
 * handler of a pattern outside the contract map (a test's) can use it directly.
 */
export function ValidatedPayload(requestClass: RequestClass<unknown>): ParameterDecorator {
  return Payload(createPayloadPipe(requestClass));
}

/** Records a reply pattern's handler method (what `@RpcHandler` does for contract patterns; tests use it for their own). */
export function registerReplyHandler(owner: object, method: ReplyHandlerMethod): void {
  const methods = REPLY_HANDLERS.get(owner) ?? [];
  methods.push(method);
  REPLY_HANDLERS.set(owner, methods);
}
