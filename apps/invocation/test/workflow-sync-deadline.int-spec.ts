import { InvocationPatterns, send, type WorkflowRunRequest } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { newRequestId } from '@waggle/platform';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually, startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrap } from '../src/bootstrap';

/** The gateway's wait for a sync run in this test: far shorter than the service's own limit. */
const CALLER_WAIT_MS = 3_000;

/**
 * A sync workflow invoke whose run outlasts its caller's wait: the caller's deadline travels
 * with the request (RpcHeaders.deadline), and the invocation service answers before it with the
 * catalog's time-out carrying the request id, although its own WORKFLOW_SYNC_TIMEOUT_MS is an
 * hour. Without the deadline the caller would give up on its side, with no request id to
 * follow the run by.
 */
describe('invocation service over NATS: a sync workflow answers within its caller deadline', () => {
  const workspaceId = randomUUID();
  let service: ServiceUnderTest;
  let held: Server;
  let heldUrl = '';
  let arrivals = 0;
  const release: Array<() => void> = [];

  beforeAll(async () => {
    // An API that answers only when the test ends: the run's one step waits on it.
    held = createServer((_request, response) => {
      arrivals += 1;
      release.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"held":false}'));
    });
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    heldUrl = `http://127.0.0.1:${(held.address() as AddressInfo).port}/held`;
    service = await startServiceUnderTest(bootstrap, {
      LOG_LEVEL: 'error',
      WORKFLOW_SYNC_TIMEOUT_MS: String(3_600_000),
      WORKFLOW_HTTP_URL_ALLOWLIST: '127.0.0.1',
    });
    await service.send(InvocationPatterns.applyWorkflows, {
      workspace_id: workspaceId,
      workflows: [
        {
          deployment: 'held',
          variants: [
            {
              name: 'default',
              inputs: {},
              output: '{{ wait.output.body.held }}',
              steps: [{ id: 'wait', type: 'http', method: 'GET', url: heldUrl }],
            },
          ],
        },
      ],
    });
  });

  afterAll(async () => {
    for (const answer of release.splice(0)) answer();
    await service?.stop();
    held?.closeAllConnections();
    await new Promise<void>((resolve) => held.close(() => resolve()));
  });

  it("answers with the service's time-out and the request id, not the caller's silent time-out", async () => {
    const requestId = newRequestId();
    const run: WorkflowRunRequest = {
      workspace_id: workspaceId,
      request_id: requestId,
      deployment: 'held',
      variant: 'default',
      limits: { concurrency: 5, steps_per_run: 10, tool_calls_per_day: null },
    };
    const failure = await send(service.rpc, InvocationPatterns.invokeWorkflow, run, { timeoutMs: CALLER_WAIT_MS }).then(
      () => {
        throw new Error('expected the sync invoke to answer with a time-out');
      },
      (error: unknown) => error as WaggleException,
    );
    expect(failure).toBeInstanceOf(WaggleException);
    // Only the service's answer names the request id; a time-out on the caller's side carries the pattern.
    expect(failure).toMatchObject({ code: 'upstream_request_failed', status: 504, extra: { request_id: requestId } });
    expect(failure.details).toBeUndefined();
    // The run itself goes on: its step is still waiting on the held API.
    await expectEventually(() => expect(arrivals).toBe(1));
    const view = await service.send(InvocationPatterns.getWorkflowRun, { workspace_id: workspaceId, request_id: requestId });
    expect(view).toMatchObject({ run_status: 'running' });
    for (const answer of release.splice(0)) answer();
    await expectEventually(async () =>
      expect(await service.send(InvocationPatterns.getWorkflowRun, { workspace_id: workspaceId, request_id: requestId })).toMatchObject({
        run_status: 'completed',
      }),
    );
  });
});
