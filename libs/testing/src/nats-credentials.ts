import { createAccount, createOperator, createUser, type KeyPair } from 'nkeys.js';

const UNLIMITED_ACCOUNT = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
const UNLIMITED_JETSTREAM = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };

/** A NATS JWT (header.claims.signature, ed25519-nkey) issued and signed by `issuer`. */
function signJwt(claims: Record<string, unknown>, issuer: KeyPair): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ typ: 'JWT', alg: 'ed25519-nkey' })}.${encode({ jti: '', iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), ...claims })}`;
  return `${unsigned}.${Buffer.from(issuer.sign(Buffer.from(unsigned))).toString('base64url')}`;
}

/** A `.creds` file as `nsc generate creds` writes it: the user's JWT and NKey seed. */
export function natsCredsFile(userJwt: string, seed: string): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    userJwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    'NKEYs are sensitive and should be treated as secrets.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    seed,
    '------END USER NKEY SEED------',
    '',
    '*************************************************************',
    '',
  ].join('\n');
}

export interface NatsOperatorTrust {
  /** nats-server configuration trusting the operator, with its accounts preloaded (a memory resolver). */
  serverConfig: string;
  /** A `.creds` file of a user of the application account (JetStream enabled). */
  creds: string;
}

/**
 * What `nsc` would make for a decentralised-auth NATS (nsc is not installed here): an
 * operator, a system account, an application account with JetStream, and one user's
 * credentials, all with fresh keys.
 */
export function createNatsOperatorTrust(): NatsOperatorTrust {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const user = createUser();
  const operatorJwt = signJwt(
    { sub: operator.getPublicKey(), name: 'waggle-test-operator', nats: { type: 'operator', version: 2 } },
    operator,
  );
  const systemJwt = signJwt(
    { sub: system.getPublicKey(), name: 'SYS', nats: { type: 'account', version: 2, limits: UNLIMITED_ACCOUNT } },
    operator,
  );
  const accountJwt = signJwt(
    {
      sub: account.getPublicKey(),
      name: 'waggle',
      nats: { type: 'account', version: 2, limits: { ...UNLIMITED_ACCOUNT, ...UNLIMITED_JETSTREAM } },
    },
    operator,
  );
  const userJwt = signJwt(
    { sub: user.getPublicKey(), name: 'waggle-app', nats: { type: 'user', version: 2, pub: {}, sub: {}, subs: -1, data: -1, payload: -1 } },
    account,
  );
  const serverConfig = [
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    'resolver: MEMORY',
    'resolver_preload: {',
    `  ${system.getPublicKey()}: ${systemJwt}`,
    `  ${account.getPublicKey()}: ${accountJwt}`,
    '}',
    '',
  ].join('\n');
  return { serverConfig, creds: natsCredsFile(userJwt, new TextDecoder().decode(user.getSeed())) };
}
