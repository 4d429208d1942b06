import {
  CatalogPatterns,
  InvocationPatterns,
  ModelIdRequest,
  PromptRunRequest,
  WorkspaceIdRequest,
  type ModelRoute,
  type PromptInvokeResponse,
  type PromptStreamEvent,
  type PlanSummary,
  type RpcPattern,
  type WorkspaceSummary,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { EMPTY, type Observable } from 'rxjs';
import { RPC_HANDLERS, RpcHandler } from './rpc-handler';
import { createPayloadPipe } from './validation';

/**
 * The compile-time half of this spec is the `@ts-expect-error` lines: `npm run typecheck`
 * fails ("unused directive") the day a mistyped handler compiles again.
 */
class Handlers {
  @RpcHandler(CatalogPatterns.getModelRoute)
  route(_request: ModelIdRequest): Promise<ModelRoute> {
    return Promise.reject(new Error('not called'));
  }

  @RpcHandler(CatalogPatterns.listPlans)
  plans(): PlanSummary[] {
    return [];
  }

  @RpcHandler(InvocationPatterns.streamPrompt)
  stream(_request: PromptRunRequest): Observable<PromptStreamEvent> {
    return EMPTY;
  }

  // @ts-expect-error the request is another pattern's DTO
  @RpcHandler(CatalogPatterns.getModelRoute)
  wrongRequest(_request: WorkspaceIdRequest): Promise<ModelRoute> {
    return Promise.reject(new Error('not called'));
  }

  // @ts-expect-error a wider type than the contract's request (it would accept any workspace-scoped payload)
  @RpcHandler(InvocationPatterns.invokePrompt)
  widerRequest(_request: { workspace_id: string }): Promise<PromptInvokeResponse> {
    return Promise.reject(new Error('not called'));
  }

  // @ts-expect-error the answer is not the contract's response
  @RpcHandler(CatalogPatterns.getWorkspace)
  wrongResponse(_request: WorkspaceIdRequest): Promise<PlanSummary> {
    return Promise.reject(new Error('not called'));
  }

  // @ts-expect-error a stream pattern answered once
  @RpcHandler(InvocationPatterns.streamPrompt)
  notAStream(_request: PromptRunRequest): Promise<PromptStreamEvent> {
    return Promise.reject(new Error('not called'));
  }

  // @ts-expect-error a pattern with a payload handled without taking it
  @RpcHandler(CatalogPatterns.getWorkspace)
  ignoresRequest(): Promise<WorkspaceSummary> {
    return Promise.reject(new Error('not called'));
  }
}

describe('@RpcHandler', () => {
  it('records the method for its NATS pattern, with its kind and request class', () => {
    const methods = RPC_HANDLERS.get(Handlers) ?? [];
    expect(methods.find((method) => method.key === 'route')).toEqual({
      pattern: CatalogPatterns.getModelRoute,
      key: 'route',
      kind: 'reply',
      request: ModelIdRequest,
    });
    expect(methods.find((method) => method.key === 'stream')).toEqual({
      pattern: InvocationPatterns.streamPrompt,
      key: 'stream',
      kind: 'stream',
      request: PromptRunRequest,
    });
  });

  it('refuses a pattern outside the contract map when the class is defined', () => {
    expect(() => RpcHandler('made.up.pattern' as RpcPattern)).toThrow('made.up.pattern is not in the RPC contract map');
  });

  it("validates payloads against the contract's request class", async () => {
    const pipe = createPayloadPipe(ModelIdRequest);
    // Compiled validators answer at once, class-validator with a promise: the server awaits either.
    expect(await pipe.transform({ model_id: 'gpt' }, { type: 'body' })).toBeInstanceOf(ModelIdRequest);
    await expect(pipe.transform({}, { type: 'body' })).rejects.toMatchObject({ code: 'missing_required_field' });
    await expect(pipe.transform({ model_id: 'gpt', extra: 1 }, { type: 'body' })).rejects.toBeInstanceOf(WaggleException);
  });
});
