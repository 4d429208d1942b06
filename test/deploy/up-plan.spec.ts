/**
 * The supervisor's rules (scripts/up/plan.mjs): options, port plan, restart backoff,
 * round robin. The module is an ES module script that the build does not compile, and
 * Jest's CommonJS runtime cannot load an ES module on Node 20, so each case runs in Node
 * itself and hands its result back as JSON.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PLAN = pathToFileURL(join(__dirname, '../../scripts/up/plan.mjs')).href;

/** Evaluates `expression` with the module bound to `plan`; a thrown UsageError comes back as `{ usageError }`. */
function evaluate<T>(expression: string): T {
  const program = `
    import * as plan from ${JSON.stringify(PLAN)};
    let result;
    try { result = ${expression}; } catch (error) {
      if (!(error instanceof plan.UsageError)) throw error;
      result = { usageError: error.message };
    }
    process.stdout.write(JSON.stringify(result));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', program]).toString()) as T;
}

type Options = { replicas: number; publicPort: number; portBase: number; stateDir: string; help: boolean; logsToStdout: boolean };
type Entry = { app: string; replica: number; name: string; port: number; logName: string; behindProxy: boolean; metricsPort?: number };

const options = (argv: string[], env: Record<string, string>) =>
  evaluate<Options | { usageError: string }>(`plan.parseUpOptions(${JSON.stringify(argv)}, ${JSON.stringify(env)}, { root: '/repo' })`);

describe('npm run up: the supervisor rules', () => {
  it('restarts after 1 s, 2 s, 4 s … up to 30 s, and starts over after a minute up', () => {
    expect(evaluate<number[]>('[1, 2, 3, 4, 5, 6, 7, 20].map((streak) => plan.restartDelayMs(streak))')).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(
      evaluate<number[]>('[plan.nextRestartStreak(0, 10), plan.nextRestartStreak(3, 59_999), plan.nextRestartStreak(3, 60_000)]'),
    ).toEqual([1, 4, 1]);
  });

  it('restarts any exit it did not ask for, except a refused configuration (78)', () => {
    const verdicts = evaluate<string[]>(`[
      plan.exitVerdict({ code: 1, stopRequested: false }),
      plan.exitVerdict({ code: 0, stopRequested: false }),
      plan.exitVerdict({ code: null, stopRequested: false }),
      plan.exitVerdict({ code: 78, stopRequested: false }),
      plan.exitVerdict({ code: 0, stopRequested: true }),
      plan.exitVerdict({ code: 78, stopRequested: true }),
    ]`);
    expect(verdicts).toEqual(['restart', 'restart', 'restart', 'refused', 'stopped', 'stopped']);
  });

  it('takes --replicas over WAGGLE_REPLICAS, and one replica by default', () => {
    expect(options(['--replicas', '3'], { WAGGLE_REPLICAS: '2' })).toMatchObject({ replicas: 3 });
    expect(options(['-r', '2'], {})).toMatchObject({ replicas: 2 });
    expect(options([], { WAGGLE_REPLICAS: '2' })).toMatchObject({ replicas: 2 });
    expect(options([], {})).toEqual({
      help: false,
      replicas: 1,
      publicPort: 3000,
      portBase: 3100,
      stateDir: '/repo/.waggle',
      logsToStdout: false,
    });
    expect(options([], { PORT: '8080', WAGGLE_PORT_BASE: '9000', WAGGLE_STATE_DIR: '/var/waggle', WAGGLE_LOGS: 'stdout' })).toMatchObject({
      publicPort: 8080,
      portBase: 9000,
      stateDir: '/var/waggle',
      logsToStdout: true,
    });
  });

  it('refuses what it cannot run, naming the setting', () => {
    expect(options(['--replicas', '0'], {})).toEqual({ usageError: '--replicas must be an integer from 1 to 16, not "0"' });
    expect(options(['--replicas', '2.5'], {})).toEqual({ usageError: '--replicas must be an integer from 1 to 16, not "2.5"' });
    expect(options([], { WAGGLE_REPLICAS: 'two' })).toEqual({ usageError: 'WAGGLE_REPLICAS must be an integer from 1 to 16, not "two"' });
    expect(options(['--replica', '2'], {})).toEqual({ usageError: expect.stringContaining("Unknown option '--replica'") });
    expect(options(['extra'], {})).toEqual({ usageError: expect.stringContaining("'extra'") });
    expect(options([], { WAGGLE_PORT_BASE: '65530' })).toEqual({
      usageError: "WAGGLE_PORT_BASE 65530 is too high: replica 1's last port would be 65536",
    });
  });

  it('keeps one gateway on the public port and the services on 3101–3106', () => {
    const plan = evaluate<Entry[]>('plan.planReplicas({ replicas: 1, publicPort: 3000, portBase: 3100 })');
    expect(plan.map(({ name, port }) => [name, port])).toEqual([
      ['invocation#1', 3101],
      ['agent#1', 3102],
      ['knowledge-base#1', 3103],
      ['asset#1', 3104],
      ['catalog#1', 3105],
      ['callback-dispatcher#1', 3106],
      ['gateway#1', 3000],
    ]);
    expect(plan.some((entry) => entry.behindProxy)).toBe(false);
  });

  it('gives replica n the block of ports from base + 10(n−1), gateways behind the proxy', () => {
    const plan = evaluate<Entry[]>('plan.planReplicas({ replicas: 2, publicPort: 3000, portBase: 3100 })');
    expect(plan).toHaveLength(14);
    expect(new Set(plan.map((entry) => entry.port)).size).toBe(14);
    expect(plan.find((entry) => entry.name === 'invocation#2')).toEqual({
      app: 'invocation',
      replica: 2,
      name: 'invocation#2',
      port: 3111,
      logName: 'invocation-2.log',
      behindProxy: false,
    });
    expect(plan.filter((entry) => entry.app === 'gateway')).toEqual([
      { app: 'gateway', replica: 1, name: 'gateway#1', port: 3100, logName: 'gateway-1.log', behindProxy: true, metricsPort: 3107 },
      { app: 'gateway', replica: 2, name: 'gateway#2', port: 3110, logName: 'gateway-2.log', behindProxy: true, metricsPort: 3117 },
    ]);
    expect(evaluate('plan.planReplicas({ replicas: 2, publicPort: 3112, portBase: 3100 })')).toEqual({
      usageError: "PORT 3112 is also agent#2's port; move PORT or WAGGLE_PORT_BASE",
    });
  });

  it('picks the next upstream that is up and not yet tried, in turn', () => {
    const picks = evaluate<number[]>(`(() => {
      const upstreams = [{ up: true }, { up: false }, { up: true }];
      return [
        plan.pickUpstream(upstreams, 0),
        plan.pickUpstream(upstreams, 1),
        plan.pickUpstream(upstreams, 3),
        plan.pickUpstream(upstreams, 0, new Set([0])),
        plan.pickUpstream(upstreams, 0, new Set([0, 2])),
        plan.pickUpstream([{ up: false }], 0),
      ];
    })()`);
    expect(picks).toEqual([0, 2, 0, 2, -1, -1]);
  });
});
