import type { INestApplication } from '@nestjs/common';
import { send, type ReplyPattern, type RpcRequest, type RpcResponse } from '@waggle/contracts';
import { BaseEnv, loadConfig, NatsRpcClient } from '@waggle/platform';

export interface ServiceUnderTest {
  app: INestApplication;
  /** Its HTTP server (`/health/*`), on a free port of loopback. */
  baseUrl: string;
  /** A NATS client of the test's own, as the gateway or another service would call it. */
  rpc: NatsRpcClient;
  /** One request over NATS, straight to the service (no gateway), with the contract's types. */
  send<P extends ReplyPattern>(pattern: P, payload: RpcRequest<P>, timeoutMs?: number): Promise<RpcResponse<P>>;
  /** Closes the service (gracefully, as on SIGTERM); the test's client stays connected. Once only. */
  closeApp(): Promise<void>;
  /** Closes the service and the test's client. Once only. */
  stop(): Promise<void>;
}

/**
 * Starts a service in this process through its own `bootstrap()`, which reads its config
 * from the environment as in production: the given variables (and a free port on
 * loopback) are in place while it boots, and put back afterwards.
 */
export async function startServiceUnderTest(
  bootstrap: () => Promise<INestApplication>,
  env: Record<string, string> = {},
): Promise<ServiceUnderTest> {
  const overrides: Record<string, string> = { PORT: '0', HOST: '127.0.0.1', ...env };
  const saved = Object.fromEntries(Object.keys(overrides).map((name) => [name, process.env[name]]));
  Object.assign(process.env, overrides);
  let app: INestApplication;
  try {
    app = await bootstrap();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const rpc = new NatsRpcClient(loadConfig(BaseEnv), 'service-under-test');
  try {
    await rpc.connect();
  } catch (error) {
    await app.close();
    throw error;
  }
  let appClosed: Promise<void> | undefined;
  let rpcClosed: Promise<void> | undefined;
  const closeApp = () => (appClosed ??= app.close());
  return {
    app,
    baseUrl: await app.getUrl(),
    rpc,
    send: (pattern, payload, timeoutMs = 10_000) => send(rpc, pattern, payload, { timeoutMs }),
    closeApp,
    async stop() {
      rpcClosed ??= rpc.close().catch(() => undefined);
      await Promise.all([rpcClosed, closeApp()]);
    },
  };
}
