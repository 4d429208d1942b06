import { Body, Controller, Module, Param, Post, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WaggleException } from '@waggle/errors';
import {
  GracefulNatsServer,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  PlatformModule,
  requestContext,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';
import { IsInt, IsString, Min } from 'class-validator';
import type { NextFunction, Request, Response } from 'express';
import { configureGatewayApp } from '../src/bootstrap';
import { GatewayEnv } from '../src/config/gateway.env';

/**
 * A request from the real gateway edge (filter, body parsing, NATS client) through the
 * real NATS server to a service handler built with the platform's RPC conventions.
 */
class ProbeDto {
  @IsString()
  name!: string;

  @IsInt()
  @Min(1)
  count!: number;
}

/** Holds the slow handler until the test lets it go: its reply can only come after the time-out. */
let releaseSlow: () => void = () => undefined;
let slowReleased = Promise.resolve();
function holdSlowHandler(): void {
  slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
}

@Controller()
class ProbeServiceController {
  @UncontractedRpcHandler('test.probe.deprecated')
  deprecated(): never {
    throw new WaggleException('model_deprecated', { params: { model: 'gpt-3.5-turbo-0301' } });
  }

  @UncontractedRpcHandler('test.probe.limit')
  limit(): never {
    throw new WaggleException('api_rate_limit_exceeded', { params: { limit: 100 }, extra: { limit: 100, current: 101 } });
  }

  @UncontractedRpcHandler('test.probe.crash')
  crash(): never {
    throw new Error('connection to postgres://admin:hunter2@db failed');
  }

  @UncontractedRpcHandler('test.probe.slow')
  async slow(): Promise<{ ok: boolean }> {
    await slowReleased;
    return { ok: true };
  }

  @UncontractedRpcHandler('test.probe.validate', { request: ProbeDto })
  validate(probe: ProbeDto): ProbeDto {
    return probe;
  }

  @UncontractedRpcHandler('test.probe.context')
  context(): unknown {
    return requestContext.get() ?? {};
  }
}

@Module({ controllers: [ProbeServiceController] })
class ProbeServiceModule {}

@Controller('probe')
class ProbeGatewayController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Post(':kind')
  probe(@Param('kind') kind: string, @Body() body: unknown): Promise<unknown> {
    // Test-only patterns: they are not part of the typed contract map, so the transport is called as `send` would.
    return this.rpc.reply(`test.probe.${kind}`, body, {}, 700);
  }
}

describe('errors across the NATS wire', () => {
  let service: INestMicroservice;
  let gateway: NestExpressApplication;
  let baseUrl: string;

  beforeAll(async () => {
    holdSlowHandler();
    const env = loadConfig(GatewayEnv, { ...process.env, MAX_JSON_BODY_BYTES: '2048' });
    const server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue: 'test-probe' }, 1_000);
    service = await NestFactory.createMicroservice(ProbeServiceModule, { strategy: server, logger: false });
    serveRpcHandlers(service, server);
    expect(server.servedPatterns.sort()).toEqual(
      ['context', 'crash', 'deprecated', 'limit', 'slow', 'validate'].map((kind) => `test.probe.${kind}`),
    );
    await service.listen();

    @Module({
      imports: [PlatformModule.forApp({ app: 'gateway', env, dependencies: ['nats'], accessLog: 'own' })],
      controllers: [ProbeGatewayController],
    })
    class ProbeGatewayModule {}
    gateway = await NestFactory.create<NestExpressApplication>(ProbeGatewayModule, { bodyParser: false, logger: false });
    // Stands in for authentication, which sets the workspace's account language.
    gateway.use((request: Request & { locale?: string }, _response: Response, next: NextFunction) => {
      request.locale = request.header('x-test-locale');
      next();
    });
    configureGatewayApp(gateway, env);
    await gateway.listen(0, '127.0.0.1');
    baseUrl = await gateway.getUrl();
  });

  afterAll(async () => {
    releaseSlow();
    await gateway?.close();
    await service?.close();
  });

  const post = (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers a catalog error with its status and the exact JSON error shape', async () => {
    const response = await post('/probe/deprecated');
    expect(response.status).toBe(422);
    const message = 'The model gpt-3.5-turbo-0301 is no longer available. Choose another model.';
    expect(await response.json()).toEqual({ error: message, message, error_code: 'model_deprecated', code: 'model_deprecated' });
  });

  it('localizes the message in the account language', async () => {
    const response = await post('/probe/deprecated', {}, { 'x-test-locale': 'es' });
    expect(response.status).toBe(422);
    const body = (await response.json()) as Record<string, string>;
    expect(body.error_code).toBe('model_deprecated');
    expect(body.message).toContain('gpt-3.5-turbo-0301');
    expect(body.message).not.toContain('%{model}');
    expect(body.message).not.toBe('The model gpt-3.5-turbo-0301 is no longer available. Choose another model.');
    expect(body.error).toBe(body.message);
  });

  it('carries the deprecated `code` alias and the extra fields a code requires', async () => {
    const response = await post('/probe/limit');
    expect(response.status).toBe(429);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: body.message,
      message: expect.stringContaining('100'),
      error_code: 'api_rate_limit_exceeded',
      code: 'api_rate_limit_exceeded',
      limit: 100,
      current: 101,
    });
  });

  it('turns an unexpected exception into internal_server_error with an error id and no internals', async () => {
    const response = await post('/probe/crash');
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('postgres://');
    expect(text).not.toMatch(/\bat .+\.js:\d+/);
    const body = JSON.parse(text) as { error: string; message: string; error_code: string; details: { error_id: string } };
    expect(body.error_code).toBe('internal_server_error');
    expect(body.error).toBe(body.message);
    expect(body.details.error_id).toMatch(/^err_[0-9a-f]{16}$/);
  });

  it('turns a NATS time-out into upstream_request_failed (504)', async () => {
    const response = await post('/probe/slow');
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error_code: 'upstream_request_failed' });
  });

  it('answers 502 at once when no service listens on the pattern', async () => {
    const response = await post('/probe/nobody-listens');
    // NATS reports "no responders" instead of letting the call run into its time-out (504).
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error_code: 'upstream_request_failed' });
  });

  it('validates payloads in the service and names the failing fields', async () => {
    const invalid = await post('/probe/validate', { name: 'x', count: 0 });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ error_code: 'validation_error', details: [{ field: 'count' }] });

    const missing = await post('/probe/validate', { count: 2 });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ error_code: 'missing_required_field', details: [{ field: 'name' }] });

    const unknownField = await post('/probe/validate', { name: 'x', count: 2, admin: true });
    expect(unknownField.status).toBe(422);
    expect(await unknownField.json()).toMatchObject({ error_code: 'validation_error', details: [{ field: 'admin' }] });

    const valid = await post('/probe/validate', { name: 'x', count: 2 });
    expect(valid.status).toBe(201);
    expect(await valid.json()).toEqual({ name: 'x', count: 2 });
  });

  it('carries the gateway request id to the service in NATS headers', async () => {
    const response = await post('/probe/context');
    const body = (await response.json()) as { requestId?: string };
    expect(body.requestId).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('answers malformed JSON with 400 invalid_request and an oversized body with 413', async () => {
    const malformed = await fetch(`${baseUrl}/probe/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error_code: 'invalid_request', error: expect.any(String), message: expect.any(String) });

    const oversized = await post('/probe/validate', { name: 'x'.repeat(4096), count: 1 });
    expect(oversized.status).toBe(413);
    expect(await oversized.json()).toMatchObject({ error_code: 'validation_error' });
  });
});
