import * as dns from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { CallbackRefusedError, describeRangeMessage, nonPublicRange, type CallbackUrlPolicy } from './callback-url-policy';

export interface GuardedDispatcherOptions {
  connectTimeoutMs?: number;
  /** for tests only */
  lookup?: typeof dns.lookup;
  /** for tests only: extra trust anchors; certificate verification itself stays on. */
  tls?: { ca?: string | Buffer };
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The address check for one connection: `addresses` are what `hostname` resolved to (or the
 * literal itself). Every address must be public, because the socket may try any of them
 * (Happy Eyeballs); an allowlisted host skips the check altogether.
 */
export function checkResolvedAddresses(
  hostname: string,
  addresses: readonly string[],
  policy: CallbackUrlPolicy,
): CallbackRefusedError | null {
  if (policy.isAllowlistedHost(hostname)) return null;
  const field = { detail: policy.wording.url };
  const host = { detail: policy.wording.host };
  if (addresses.length === 0) return new CallbackRefusedError({ detail: 'host_unresolved', params: { host } });
  const literal = isIP(hostname) !== 0;
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range === null) continue;
    const what = { range: describeRangeMessage(range), address };
    return new CallbackRefusedError(
      literal
        ? { detail: 'url_non_public_address', params: { field, ...what } }
        : { detail: 'host_non_public_address', params: { host, ...what } },
    );
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that checks what it hands back: the socket connects to exactly
 * the addresses checked here, so a second, different DNS answer cannot slip in between.
 */
function guardedLookup(policy: CallbackUrlPolicy, resolve: typeof dns.lookup) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refusal = checkResolvedAddresses(
        hostname,
        addresses.map((entry) => entry.address),
        policy,
      );
      if (refusal) return callback(refusal as NodeJS.ErrnoException, []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * An undici Agent for sending callbacks: connections only go to addresses the policy accepts.
 * Use it with `undici.request` (which does not follow redirects, so a 3xx cannot lead elsewhere).
 */
export function createGuardedDispatcher(policy: CallbackUrlPolicy, options: GuardedDispatcherOptions = {}): Agent {
  const connector = buildConnector({
    ...(options.tls?.ca === undefined ? {} : { ca: options.tls.ca }),
    timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    lookup: guardedLookup(policy, options.lookup ?? dns.lookup),
  });
  return new Agent({
    connect(connectOptions, callback) {
      // net.connect skips `lookup` for IP literals, so those are checked here.
      if (isIP(connectOptions.hostname) !== 0) {
        const refusal = checkResolvedAddresses(connectOptions.hostname, [connectOptions.hostname], policy);
        if (refusal) {
          process.nextTick(callback, refusal, null);
          return;
        }
      }
      connector(connectOptions, callback);
    },
  });
}

/** The guard's refusal behind an error thrown by `undici.request(...)` with a guarded dispatcher, if it was one. */
export function refusalOf(error: unknown): CallbackRefusedError | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof CallbackRefusedError) return current;
    if (current instanceof AggregateError) pending.push(...current.errors);
    if ('cause' in current) pending.push(current.cause);
  }
  return null;
}
