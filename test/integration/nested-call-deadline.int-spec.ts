import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BaseEnv,
  GracefulNatsServer,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  requestContext,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';

/** What a handler heard as its caller's deadline (RpcHeaders.deadline, epoch ms). */
interface HeardDeadline {
  deadlineAt?: number;
}

let client: NatsRpcClient;
/** The wait the outer handler asks for its nested call: its own time-out, before any cap. */
let nestedWaitMs = 0;

@Controller()
class DeadlineController {
  /** Calls the inner pattern while handling this request, and tells both deadlines. */
  @UncontractedRpcHandler('test.deadline.outer')
  async outer(): Promise<{ outer: HeardDeadline; inner: HeardDeadline }> {
    const inner = (await client.reply('test.deadline.inner', {}, {}, nestedWaitMs)) as HeardDeadline;
    return { outer: { deadlineAt: requestContext.get()?.deadlineAt }, inner };
  }

  @UncontractedRpcHandler('test.deadline.inner')
  inner(): HeardDeadline {
    return { deadlineAt: requestContext.get()?.deadlineAt };
  }
}

@Module({ controllers: [DeadlineController] })
class DeadlineModule {}

/**
 * A call made while handling a request is capped by that request's deadline: the nested request
 * carries the caller's deadline when it comes first, so nothing downstream works for an answer
 * nobody waits for any more (the time-out itself follows the same deadline; `send` cuts a
 * contract's time-out the same way, libs/contracts/src/send.spec.ts).
 */
describe('a nested call inside a handler', () => {
  const env = loadConfig(BaseEnv);
  let service: INestMicroservice;

  beforeAll(async () => {
    client = new NatsRpcClient(env, 'nested-deadline-test');
    await client.connect();
    const server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue: 'test-nested-deadline' }, 5_000);
    service = await NestFactory.createMicroservice(DeadlineModule, { strategy: server, logger: false });
    serveRpcHandlers(service, server);
    await service.listen();
  });

  afterAll(async () => {
    await service.close();
    await client.close();
  });

  it("gets its caller's deadline when that is shorter than its own time-out", async () => {
    nestedWaitMs = 60_000;
    const answer = (await client.reply('test.deadline.outer', {}, {}, 10_000)) as { outer: HeardDeadline; inner: HeardDeadline };
    expect(answer.outer.deadlineAt).toEqual(expect.any(Number));
    expect(answer.inner.deadlineAt).toBe(answer.outer.deadlineAt);
  });

  it('keeps its own, shorter time-out', async () => {
    nestedWaitMs = 1_000;
    const answer = (await client.reply('test.deadline.outer', {}, {}, 60_000)) as { outer: HeardDeadline; inner: HeardDeadline };
    expect(answer.inner.deadlineAt).toBeLessThan(answer.outer.deadlineAt ?? 0);
  });
});
