import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BaseEnv,
  GracefulNatsServer,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  type NatsEnv,
  type NatsRefusalPhase,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';
import { createNatsOperatorTrust, createTestCertificates, expectEventually, freePort, startOwnNats, type OwnServer } from '@waggle/testing';
import { createUser } from 'nkeys.js';
import { connect } from 'nats';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ECHO = 'test.nats-auth.echo';

@Controller()
class EchoController {
  @UncontractedRpcHandler(ECHO)
  echo(payload: { word: string }): { heard: string } {
    return { heard: payload.word };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/**
 * Each way of giving a process its NATS credentials and TLS, against a nats-server of the
 * test's own that demands it: the RPC client and the services' NATS server connect with
 * natsConnectionOptions and a request goes across; without the credentials (or the client
 * certificate) the connection is refused and the refusal is reported as such.
 */
describe('NATS authentication and TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waggle-nats-auth-'));
  let nats: OwnServer | undefined;
  const closers: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    await nats?.stop();
    nats = undefined;
  });

  /** Its own nats-server with `config`; the environment a process would be given to reach it. */
  async function startNats(name: string, config: string): Promise<string> {
    const started = await startOwnNats(await freePort(), join(dir, name), { config });
    nats = started.server;
    return started.url;
  }

  /** A file only this test reads, as a Secret mounted into a pod would be. */
  function secretFile(name: string, content: string): string {
    const file = join(dir, name);
    writeFileSync(file, content, { mode: 0o600 });
    return file;
  }

  /** The env as an app would validate it: the files exist, the URL carries no credentials. */
  const envOf = (variables: Record<string, string>): NatsEnv => loadConfig(BaseEnv, variables);

  /** A service on the server and a client, both connected with `env`; the client's answer to one request. */
  async function roundTrip(env: NatsEnv, queue: string): Promise<unknown> {
    const server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue }, 1_000);
    const service: INestMicroservice = await NestFactory.createMicroservice(EchoModule, { strategy: server, logger: false });
    serveRpcHandlers(service, server);
    await service.listen();
    closers.push(() => service.close());
    const client = new NatsRpcClient(env, `${queue}-client`);
    await client.connect();
    closers.push(() => client.close());
    return client.reply(ECHO, { word: queue }, {}, 10_000);
  }

  /** Connects a client with `env`, expecting the server to refuse it; what the client was told and reported. */
  async function refusedClient(env: NatsEnv): Promise<{ error: unknown; reported: NatsRefusalPhase[] }> {
    const reported: NatsRefusalPhase[] = [];
    const client = new NatsRpcClient(env, 'refused-client', { onCredentialsRefused: (_error, phase) => reported.push(phase) });
    const error = await client.connect().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await client.close().catch(() => undefined);
    return { error, reported };
  }

  it('user and password', async () => {
    const url = await startNats('user', 'authorization { user: waggle, password: "pa55-word" }');
    await expect(roundTrip(envOf({ NATS_URL: url, NATS_USER: 'waggle', NATS_PASSWORD: 'pa55-word' }), 'user')).resolves.toEqual({
      heard: 'user',
    });
    const wrong = await refusedClient(envOf({ NATS_URL: url, NATS_USER: 'waggle', NATS_PASSWORD: 'wrong' }));
    expect(wrong.error).toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    expect(wrong.reported).toEqual(['starting']);
  });

  it('reports credentials the server stops accepting while the client runs, once', async () => {
    const url = await startNats('revoked', 'authorization { user: waggle, password: "first" }');
    const reported: NatsRefusalPhase[] = [];
    const client = new NatsRpcClient(envOf({ NATS_URL: url, NATS_USER: 'waggle', NATS_PASSWORD: 'first' }), 'revoked-client', {
      onCredentialsRefused: (_error, phase) => reported.push(phase),
    });
    await client.connect();
    closers.push(() => client.close());
    // The password rotated on the server only: it drops the client, and refuses its reconnects.
    writeFileSync(join(dir, 'revoked', 'nats.conf'), 'authorization { user: waggle, password: "second" }');
    if (!nats?.pid) throw new Error('the test NATS is not running');
    process.kill(nats.pid, 'SIGHUP');
    await expectEventually(() => expect(reported).toEqual(['running']), { timeoutMs: 30_000, intervalMs: 100 });
    expect(client.connection()?.isClosed()).toBe(true);
  });

  it('token', async () => {
    const url = await startNats('token', 'authorization { token: "s3cret-t0ken" }');
    await expect(roundTrip(envOf({ NATS_URL: url, NATS_TOKEN: 's3cret-t0ken' }), 'token')).resolves.toEqual({ heard: 'token' });
    const none = await refusedClient(envOf({ NATS_URL: url }));
    expect(none.error).toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    expect(none.reported).toEqual(['starting']);
  });

  it('NKey seed file', async () => {
    const user = createUser();
    const url = await startNats('nkey', `authorization { users: [ { nkey: ${user.getPublicKey()} } ] }`);
    const seedFile = secretFile('user.nk', `${new TextDecoder().decode(user.getSeed())}\n`);
    await expect(roundTrip(envOf({ NATS_URL: url, NATS_NKEY_SEED_FILE: seedFile }), 'nkey')).resolves.toEqual({ heard: 'nkey' });
    const stranger = secretFile('stranger.nk', new TextDecoder().decode(createUser().getSeed()));
    expect((await refusedClient(envOf({ NATS_URL: url, NATS_NKEY_SEED_FILE: stranger }))).error).toMatchObject({
      code: 'AUTHORIZATION_VIOLATION',
    });
  });

  it('.creds file (operator, account and user JWTs), with JetStream', async () => {
    const trust = createNatsOperatorTrust();
    const url = await startNats('creds', trust.serverConfig);
    const env = envOf({ NATS_URL: url, NATS_CREDS_FILE: secretFile('waggle.creds', trust.creds) });
    await expect(roundTrip(env, 'creds')).resolves.toEqual({ heard: 'creds' });
    // The apps' ledger and claim checks live in JetStream: the account may use it.
    const connection = await connect(natsConnectionOptions(env));
    closers.push(() => connection.close());
    const manager = await connection.jetstreamManager();
    await expect(manager.getAccountInfo()).resolves.toMatchObject({ limits: { max_streams: -1 } });
    expect((await refusedClient(envOf({ NATS_URL: url }))).error).toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it('TLS with a client certificate (verify: true), refused without one', async () => {
    const certificates = await createTestCertificates();
    const files = {
      ca: secretFile('ca.pem', certificates.caCert),
      serverCert: secretFile('server.pem', certificates.cert),
      serverKey: secretFile('server.key', certificates.key),
      clientCert: secretFile('client.pem', certificates.clientCert),
      clientKey: secretFile('client.key', certificates.clientKey),
    };
    const url = await startNats(
      'tls',
      `tls { cert_file: "${files.serverCert}", key_file: "${files.serverKey}", ca_file: "${files.ca}", verify: true }`,
    );
    const env = envOf({
      NATS_URL: url,
      NATS_TLS_CA_FILE: files.ca,
      NATS_TLS_CERT_FILE: files.clientCert,
      NATS_TLS_KEY_FILE: files.clientKey,
    });
    await expect(roundTrip(env, 'tls')).resolves.toEqual({ heard: 'tls' });

    // Without the client certificate the server ends the handshake; the client hears nothing
    // more, so its own handshake time-out (shortened here from 20 s) is what ends the attempt.
    const withoutCertificate = natsConnectionOptions(envOf({ NATS_URL: url, NATS_TLS_CA_FILE: files.ca }));
    await expect(connect({ ...withoutCertificate, timeout: 3_000, reconnect: false })).rejects.toThrow();
    expect(nats?.output()).toMatch(/TLS handshake error: tls: client didn't provide a certificate/);
    // Nor does a client that does not ask for TLS get in.
    await expect(connect({ servers: url, timeout: 3_000, reconnect: false })).rejects.toThrow();
  });
});
