import { createUser, decode, fromPublic } from 'nkeys.js';
import { ErrorCode, NatsError } from 'nats';
import { BaseEnv, ConfigError, describeEnv, loadConfig } from '../config/env';
import {
  isNatsCredentialsRefusal,
  natsConnectionOptions,
  natsCredentialsRefusedLine,
  watchNatsCredentials,
  type NatsEnv,
} from './nats-connection';

const NONCE = 'a-server-nonce';
const encoder = new TextEncoder();

/** A `.creds` file's two armoured blocks, as `nsc generate creds` writes them (@waggle/testing's natsCredsFile writes the whole file; platform may not import it). */
function natsCredsFile(jwt: string, seed: string): string {
  return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
}

/** What the client sends the server in CONNECT, from the options' authenticator. */
function authOf(env: Partial<NatsEnv>, files: Record<string, string> = {}): Record<string, unknown> {
  const read = (path: string) => {
    if (!(path in files)) throw new Error(`unexpected read of ${path}`);
    return encoder.encode(files[path]);
  };
  const { authenticator } = natsConnectionOptions({ NATS_URL: 'nats://nats:4222', ...env }, read);
  if (!authenticator || Array.isArray(authenticator)) throw new Error('expected one authenticator');
  return authenticator(NONCE) as unknown as Record<string, unknown>;
}

describe('natsConnectionOptions', () => {
  it('gives the servers alone when neither credentials nor TLS are set', () => {
    expect(natsConnectionOptions({ NATS_URL: 'nats://a:4222,nats://b:4222' })).toEqual({ servers: ['nats://a:4222', 'nats://b:4222'] });
  });

  it('authenticates with a user and password', () => {
    expect(authOf({ NATS_USER: 'waggle', NATS_PASSWORD: 's3cret' })).toEqual({ user: 'waggle', pass: 's3cret' });
  });

  it('authenticates with a token', () => {
    expect(authOf({ NATS_TOKEN: 't0ken' })).toEqual({ auth_token: 't0ken' });
  });

  it('signs the server nonce with the NKey seed read from its file', () => {
    const user = createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const auth = authOf({ NATS_NKEY_SEED_FILE: '/secrets/nats.nk' }, { '/secrets/nats.nk': `${seed}\n` });
    expect(auth.nkey).toBe(user.getPublicKey());
    expect(fromPublic(user.getPublicKey()).verify(encoder.encode(NONCE), decode(auth.sig as string))).toBe(true);
  });

  it('sends the JWT of a .creds file and signs the nonce with its seed', () => {
    const user = createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const auth = authOf(
      { NATS_CREDS_FILE: '/secrets/waggle.creds' },
      { '/secrets/waggle.creds': natsCredsFile('eyJ0eXAiOiJKV1QifQ.e30.c2ln', seed) },
    );
    expect(auth.jwt).toBe('eyJ0eXAiOiJKV1QifQ.e30.c2ln');
    expect(auth.nkey).toBe(user.getPublicKey());
    expect(fromPublic(user.getPublicKey()).verify(encoder.encode(NONCE), decode(auth.sig as string))).toBe(true);
  });

  it('reads a credentials file again on every connection, so a rotated Secret is used without a restart', () => {
    const first = createUser();
    const second = createUser();
    const files: Record<string, string> = { '/secrets/nats.nk': new TextDecoder().decode(first.getSeed()) };
    const { authenticator } = natsConnectionOptions({ NATS_URL: 'nats://nats:4222', NATS_NKEY_SEED_FILE: '/secrets/nats.nk' }, (path) =>
      encoder.encode(files[path]),
    );
    const auth = authenticator as (nonce: string) => { nkey: string };
    expect(auth(NONCE).nkey).toBe(first.getPublicKey());
    files['/secrets/nats.nk'] = new TextDecoder().decode(second.getSeed());
    expect(auth(NONCE).nkey).toBe(second.getPublicKey());
  });

  it('turns TLS on with the CA alone, and adds the client certificate and key when given', () => {
    expect(natsConnectionOptions({ NATS_URL: 'tls://nats:4222', NATS_TLS_CA_FILE: '/tls/ca.pem' }).tls).toEqual({ caFile: '/tls/ca.pem' });
    expect(
      natsConnectionOptions({
        NATS_URL: 'nats://nats:4222',
        NATS_TLS_CA_FILE: '/tls/ca.pem',
        NATS_TLS_CERT_FILE: '/tls/tls.crt',
        NATS_TLS_KEY_FILE: '/tls/tls.key',
      }).tls,
    ).toEqual({
      caFile: '/tls/ca.pem',
      certFile: '/tls/tls.crt',
      keyFile: '/tls/tls.key',
    });
  });
});

describe('NATS variables of BaseEnv', () => {
  const problemsOf = (source: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig(BaseEnv, source);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.problems;
    }
  };

  it('refuses a NATS_URL carrying credentials, in one line that does not echo them', () => {
    for (const url of [
      'nats://waggle:hunter2@nats:4222',
      'nats://hunter2@nats:4222',
      'nats://nats-a:4222,tls://waggle:hunter2@nats-b:4222',
    ]) {
      const problems = problemsOf({ NATS_URL: url });
      expect(problems).toEqual([
        expect.stringMatching(
          /^NATS_URL: NATS_URL must name servers only, without credentials: give them in NATS_USER and NATS_PASSWORD, NATS_TOKEN/,
        ),
      ]);
      expect(problems.join('\n')).not.toContain('hunter2');
    }
    expect(problemsOf({ NATS_URL: 'nats://nats-a:4222,tls://nats-b:4222' })).toEqual([]);
  });

  it('needs the user and the password together', () => {
    expect(problemsOf({ NATS_USER: 'waggle' })).toEqual(['NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together: set both']);
    expect(problemsOf({ NATS_PASSWORD: 'hunter2' })).toEqual(['NATS_USER: NATS_USER and NATS_PASSWORD go together: set both']);
    expect(loadConfig(BaseEnv, { NATS_USER: 'waggle', NATS_PASSWORD: 'hunter2' })).toMatchObject({
      NATS_USER: 'waggle',
      NATS_PASSWORD: 'hunter2',
    });
  });

  it('takes one way to authenticate, and names the variables of a second', () => {
    const problems = problemsOf({ NATS_USER: 'waggle', NATS_PASSWORD: 'hunter2', NATS_TOKEN: 't0ken' });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(['NATS_TOKEN', 'NATS_USER']);
    expect(problems[0]).toMatch(/set one way to authenticate to NATS/);
  });

  it('refuses credential and TLS files it cannot read, and a certificate without its key', () => {
    expect(problemsOf({ NATS_CREDS_FILE: '/nonexistent/waggle.creds' })).toEqual([
      'NATS_CREDS_FILE: must name a file this process can read',
    ]);
    expect(problemsOf({ NATS_NKEY_SEED_FILE: '/nonexistent/nats.nk' })).toEqual([
      'NATS_NKEY_SEED_FILE: must name a file this process can read',
    ]);
    expect(problemsOf({ NATS_TLS_CA_FILE: '/nonexistent/ca.pem' })).toEqual(['NATS_TLS_CA_FILE: must name a file this process can read']);
    expect(problemsOf({ NATS_TLS_CERT_FILE: __filename })).toEqual([
      'NATS_TLS_KEY_FILE: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both',
    ]);
    expect(problemsOf({ NATS_TLS_KEY_FILE: __filename })).toEqual([
      'NATS_TLS_CERT_FILE: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both',
    ]);
    expect(problemsOf({ NATS_TLS_CA_FILE: __filename, NATS_TLS_CERT_FILE: __filename, NATS_TLS_KEY_FILE: __filename })).toEqual([]);
  });

  it('declares the password and the token as secrets, and leaves every NATS credential unset by default', () => {
    const secrets = describeEnv(BaseEnv)
      .filter((info) => info.secret)
      .map((info) => info.name);
    expect(secrets).toEqual(expect.arrayContaining(['NATS_PASSWORD', 'NATS_TOKEN']));
    expect(secrets).not.toContain('NATS_USER');
    const env = loadConfig(BaseEnv, {});
    for (const name of [
      'NATS_USER',
      'NATS_PASSWORD',
      'NATS_TOKEN',
      'NATS_NKEY_SEED_FILE',
      'NATS_CREDS_FILE',
      'NATS_TLS_CA_FILE',
      'NATS_TLS_CERT_FILE',
      'NATS_TLS_KEY_FILE',
    ] as const)
      expect(env[name]).toBeUndefined();
  });
});

describe('refused credentials', () => {
  // As the client makes it from the server's `-ERR 'Authorization Violation'`, quotes and all.
  const refusal = new NatsError("'Authorization Violation'", ErrorCode.AuthorizationViolation);

  it('recognises the server refusing credentials, and nothing else', () => {
    expect(isNatsCredentialsRefusal(refusal)).toBe(true);
    expect(isNatsCredentialsRefusal(NatsError.errorForCode(ErrorCode.Timeout))).toBe(false);
    expect(isNatsCredentialsRefusal(NatsError.errorForCode(ErrorCode.PermissionsViolation))).toBe(false);
    expect(isNatsCredentialsRefusal(new Error('Authorization Violation'))).toBe(false);
  });

  it('says so in one line naming the variables to set', () => {
    const line = natsCredentialsRefusedLine('gateway', refusal, 'starting');
    expect(line).toBe(
      'gateway: refusing to start: the NATS server refused its credentials (Authorization Violation); set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE to credentials it accepts',
    );
    expect(line).not.toContain('\n');
    expect(natsCredentialsRefusedLine('agent', refusal, 'running')).toMatch(/^agent: stopping: the NATS server refused its credentials/);
  });

  it('reports a connection closed by a refusal on reconnect, and not one closed on purpose', async () => {
    const seen: string[] = [];
    const onRefused = (_error: NatsError, phase: string) => seen.push(phase);
    watchNatsCredentials({ closed: () => Promise.resolve(refusal) }, onRefused);
    watchNatsCredentials({ closed: () => Promise.resolve(undefined) }, onRefused);
    await new Promise(setImmediate);
    expect(seen).toEqual(['running']);
  });
});
