// The supervisor's rules, kept free of I/O so they can be checked on their own
// (test/deploy/up-plan.spec.ts): options, the port plan, restart backoff and the
// proxy's round robin.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const SERVICES = ['invocation', 'agent', 'knowledge-base', 'asset', 'catalog', 'callback-dispatcher'];
export const APPS = [...SERVICES, 'gateway'];
export const MAX_REPLICAS = 16;

/**
 * Replica n of every app takes a block of ten ports from WAGGLE_PORT_BASE: the gateway
 * the first (used only behind the proxy), the services the next six, in this order, and a
 * gateway behind the proxy its metrics listener the eighth. With the default base, replica
 * 1's services keep the ports they always had (3101–3106); one gateway alone keeps
 * METRICS_PORT (9464 unless set).
 */
const PORT_SLOT = { gateway: 0, invocation: 1, agent: 2, 'knowledge-base': 3, asset: 4, catalog: 5, 'callback-dispatcher': 6 };
/** A gateway's Prometheus listener (METRICS_PORT) behind the proxy: the block's eighth port, so replicas never share one. */
const METRICS_SLOT = 7;
export const PORT_BLOCK = 10;

export const USAGE = `usage: npm run up -- [--replicas N]
  --replicas N, -r N   run N replicas of every service and of the gateway (1–${MAX_REPLICAS}; default
                       WAGGLE_REPLICAS, else 1); with N > 1 a round-robin proxy on PORT fronts the gateways
environment: PORT (public address, 3000), WAGGLE_PORT_BASE (3100), WAGGLE_STATE_DIR (.waggle), WAGGLE_LOGS=stdout`;

/** A mistake in how the supervisor was called: printed with the usage, exit 64 (EX_USAGE). */
export class UsageError extends Error {}

function integerSetting(name, raw, { min, max }) {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  }
  return Number(raw);
}

/** The flag wins over the environment; both are checked the same way. */
export function parseUpOptions(argv, env, { root }) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { replicas: { type: 'string', short: 'r' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  const replicas =
    values.replicas !== undefined
      ? integerSetting('--replicas', values.replicas, { min: 1, max: MAX_REPLICAS })
      : env.WAGGLE_REPLICAS
        ? integerSetting('WAGGLE_REPLICAS', env.WAGGLE_REPLICAS, { min: 1, max: MAX_REPLICAS })
        : 1;
  const publicPort = env.PORT ? integerSetting('PORT', env.PORT, { min: 1, max: 65535 }) : 3000;
  const portBase = env.WAGGLE_PORT_BASE ? integerSetting('WAGGLE_PORT_BASE', env.WAGGLE_PORT_BASE, { min: 1, max: 65535 }) : 3100;
  const highest = portBase + PORT_BLOCK * (replicas - 1) + PORT_SLOT['callback-dispatcher'];
  if (highest > 65535)
    throw new UsageError(`WAGGLE_PORT_BASE ${portBase} is too high: replica ${replicas}'s last port would be ${highest}`);
  return {
    help: values.help === true,
    replicas,
    publicPort,
    portBase,
    stateDir: env.WAGGLE_STATE_DIR ? resolve(env.WAGGLE_STATE_DIR) : resolve(root, '.waggle'),
    logsToStdout: env.WAGGLE_LOGS === 'stdout',
  };
}

/**
 * Every replica to run, services first. With one replica the gateway listens on the
 * public port itself; with more, each gateway listens on loopback behind the proxy.
 */
export function planReplicas({ replicas, publicPort, portBase }) {
  const plan = [];
  for (const app of APPS) {
    for (let replica = 1; replica <= replicas; replica += 1) {
      const port = app === 'gateway' && replicas === 1 ? publicPort : portBase + PORT_BLOCK * (replica - 1) + PORT_SLOT[app];
      const behindProxy = app === 'gateway' && replicas > 1;
      plan.push({
        app,
        replica,
        name: `${app}#${replica}`,
        port,
        logName: `${app}-${replica}.log`,
        behindProxy,
        ...(behindProxy && { metricsPort: portBase + PORT_BLOCK * (replica - 1) + METRICS_SLOT }),
      });
    }
  }
  const taken = plan.find((entry) => entry.port === publicPort && !(entry.app === 'gateway' && replicas === 1));
  if (taken) throw new UsageError(`PORT ${publicPort} is also ${taken.name}'s port; move PORT or WAGGLE_PORT_BASE`);
  return plan;
}

export const RESTART_BACKOFF = { firstMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

/**
 * How many restarts in a row this exit makes. A process that stayed up for stableMs
 * had recovered, so its crash starts the backoff afresh.
 */
export function nextRestartStreak(streak, upMs, { stableMs } = RESTART_BACKOFF) {
  return upMs >= stableMs ? 1 : streak + 1;
}

/** 1 s, 2 s, 4 s … capped: the n-th restart in a row waits firstMs × 2^(n−1). */
export function restartDelayMs(streak, { firstMs, maxMs } = RESTART_BACKOFF) {
  return Math.min(firstMs * 2 ** Math.max(0, streak - 1), maxMs);
}

/** EX_CONFIG (see libs/platform/src/app/run-app.ts): restarting cannot fix a bad setting. */
export const EX_CONFIG = 78;

/** What the supervisor does about an exit: nothing (it asked), give up (bad config) or restart. */
export function exitVerdict({ code, stopRequested }) {
  if (stopRequested) return 'stopped';
  if (code === EX_CONFIG) return 'refused';
  return 'restart';
}

export function describeExit(code, signal) {
  return signal ?? `code ${code}`;
}

/**
 * Round robin over the upstreams that are up, starting at the cursor and skipping
 * those this request already tried. Returns an index, or -1 when none is left.
 */
export function pickUpstream(upstreams, cursor, tried = new Set()) {
  for (let step = 0; step < upstreams.length; step += 1) {
    const index = (cursor + step) % upstreams.length;
    if (upstreams[index].up && !tried.has(index)) return index;
  }
  return -1;
}
