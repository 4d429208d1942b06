#!/usr/bin/env node
// Start-up time to ready and idle memory of each built app (docs/benchmarks/startup.md).
//
//   npm run build && node scripts/bench/startup.mjs [--runs N] [--json] [--apps gateway,agent]
//
// For each app, N runs, one app process at a time: spawn `node dist/apps/<app>/src/main.js`
// on a free loopback port, time spawn -> first 200 from GET /health/ready (polled every
// 25 ms), stay idle 3 s, read VmRSS and VmHWM from /proc/<pid>/status, send SIGTERM and
// time spawn of the signal -> exit, checking the exit code is 0.
// Needs PostgreSQL, Redis and NATS (scripts/ensure-infra.sh); runs the migrations first.
// Prints a Markdown table (or JSON with --json) on stdout; progress goes to stderr.
// Exits 1 when a run did not become ready within 30 s or did not exit with code 0.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort, log, machine, ROOT, sleep } from './bench-lib.mjs';

/** The seven apps and the ports they use in a normal stack (the bench picks free ones). */
const APPS = {
  gateway: 3000,
  invocation: 3101,
  agent: 3102,
  'knowledge-base': 3103,
  asset: 3104,
  catalog: 3105,
  'callback-dispatcher': 3106,
};

const POLL_MS = 25;
const READY_TIMEOUT_MS = 30_000;
const IDLE_MS = 3_000;
const EXIT_TIMEOUT_MS = 20_000; // above the apps' default SHUTDOWN_GRACE_MS + 5 s deadline
const OUTPUT_TAIL = 8_000;

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write('usage: node scripts/bench/startup.mjs [--runs N] [--json] [--apps a,b,...]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const options = { runs: 5, json: false, apps: Object.keys(APPS) };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const next = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (next === undefined) usage(`${arg} needs a value`);
      return next;
    };
    if (arg === '--json') options.json = true;
    else if (arg === '--runs' || arg.startsWith('--runs=')) {
      options.runs = Number(value());
      if (!Number.isInteger(options.runs) || options.runs < 1) usage('--runs must be a whole number of at least 1');
    } else if (arg === '--apps' || arg.startsWith('--apps=')) {
      options.apps = value().split(',').filter(Boolean);
      const unknown = options.apps.filter((app) => !(app in APPS));
      if (unknown.length) usage(`unknown app(s): ${unknown.join(', ')} (known: ${Object.keys(APPS).join(', ')})`);
    } else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument ${arg}`);
  }
  return options;
}

function readyStatus(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health/ready', agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', () => resolve(0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** VmRSS and VmHWM of a process, in KiB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
}

function benchEnv(port) {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle',
  };
}

async function runOnce(app) {
  const port = await freePort();
  const entry = join(ROOT, 'dist/apps', app, 'src/main.js');
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  let exit = null;
  const started = performance.now();
  const child = spawn(process.execPath, [entry], { cwd: ROOT, env: benchEnv(port), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal, at: performance.now() };
      resolve(exit);
    }),
  );
  const result = { app, port, ok: false };
  const kill = async () => {
    if (!exit) child.kill('SIGKILL');
    await exited;
  };

  // Spawn -> first 200 from /health/ready.
  for (;;) {
    if (exit) {
      result.error = `exited (code ${exit.code}, signal ${exit.signal}) before it was ready`;
      break;
    }
    const status = await readyStatus(port);
    if (status === 200) {
      result.readyMs = performance.now() - started;
      break;
    }
    if (performance.now() - started > READY_TIMEOUT_MS) {
      result.error = `not ready within ${READY_TIMEOUT_MS / 1000} s (last /health/ready status: ${status || 'no answer'})`;
      break;
    }
    await sleep(POLL_MS);
  }
  if (result.readyMs === undefined) {
    await kill();
    result.output = output;
    return result;
  }

  // Idle, then memory.
  await sleep(IDLE_MS);
  if (exit) {
    result.error = `exited (code ${exit.code}, signal ${exit.signal}) while idle`;
    result.output = output;
    return result;
  }
  Object.assign(result, memoryOf(child.pid));

  // SIGTERM -> exit.
  const signalled = performance.now();
  child.kill('SIGTERM');
  const timer = new Promise((resolve) => setTimeout(resolve, EXIT_TIMEOUT_MS, null));
  const done = await Promise.race([exited, timer]);
  if (!done) {
    result.error = `still running ${EXIT_TIMEOUT_MS / 1000} s after SIGTERM (killed)`;
    await kill();
    result.output = output;
    return result;
  }
  result.exitMs = done.at - signalled;
  result.exitCode = done.code;
  result.exitSignal = done.signal;
  result.ok = true;
  if (done.code !== 0) {
    result.badExit = true;
    result.output = output;
  }
  return result;
}

function median(values) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const mib = (kib) => kib / 1024;
const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function summarize(app, runs) {
  const good = runs.filter((run) => run.ok);
  const ready = good.map((run) => run.readyMs);
  return {
    app,
    defaultPort: APPS[app],
    runs: runs.length,
    failedRuns: runs.length - good.length,
    readyP50Ms: median(ready),
    readyMaxMs: ready.length ? Math.max(...ready) : NaN,
    idleRssP50MiB: mib(median(good.map((run) => run.rssKiB))),
    peakRssMiB: good.length ? mib(Math.max(...good.map((run) => run.hwmKiB))) : NaN,
    sigtermToExitP50Ms: median(good.map((run) => run.exitMs)),
    exitCodes: good.map((run) => run.exitCode ?? run.exitSignal),
  };
}

function markdown(summaries, failures, info, runsPerApp) {
  const lines = [
    '| app | start to ready p50 / max (ms) | idle RSS p50 (MB) | peak RSS (MB) | SIGTERM to exit p50 (ms) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const s of summaries) {
    const failed = s.failedRuns ? ` (${s.failedRuns} of ${s.runs} runs failed)` : '';
    lines.push(
      `| ${s.app}${failed} | ${fmt(s.readyP50Ms)} / ${fmt(s.readyMaxMs)} | ${fmt(s.idleRssP50MiB, 1)} | ${fmt(s.peakRssMiB, 1)} | ${fmt(s.sigtermToExitP50Ms)} |`,
    );
  }
  lines.push('');
  lines.push(
    `${runsPerApp} run(s) per app, one app at a time; MB = MiB; peak = highest VmHWM of the runs. ` +
      `Node ${info.node}, ${info.cpu}, ${info.cores} cores, ${info.date}; load average at start ${info.loadAverage}, at end ${info.loadAverageAtEnd}.`,
  );
  if (failures.length) lines.push('', 'Failed runs:');
  for (const failure of failures) {
    lines.push(
      `- ${failure.app} run ${failure.run}: ${failure.error ?? `exit code ${failure.exitCode ?? failure.exitSignal} after SIGTERM`}`,
    );
  }
  return lines.join('\n');
}

function migrate() {
  const entry = join(ROOT, 'dist/tools/migrate/src/main.js');
  log('running migrations (node dist/tools/migrate/src/main.js)');
  const result = spawnSync(process.execPath, [entry], { cwd: ROOT, env: benchEnv(0), encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    log(`migrations failed (exit ${result.status}); is PostgreSQL up? (npm run infra)`);
    process.exit(1);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const missing = [
    join(ROOT, 'dist/tools/migrate/src/main.js'),
    ...options.apps.map((app) => join(ROOT, 'dist/apps', app, 'src/main.js')),
  ].filter((path) => !existsSync(path));
  if (!existsSync(join(ROOT, 'dist'))) {
    log('dist/ is missing: run npm run build first');
    process.exit(1);
  }
  if (missing.length) {
    log(`${missing.map((path) => path.slice(ROOT.length + 1)).join(', ')} missing: run npm run build first`);
    process.exit(1);
  }
  migrate();

  const info = machine();
  const summaries = [];
  const failures = [];
  const allRuns = {};
  for (const app of options.apps) {
    const runs = [];
    for (let i = 1; i <= options.runs; i += 1) {
      const run = await runOnce(app);
      runs.push(run);
      if (!run.ok || run.badExit) {
        failures.push({ run: i, ...run });
        log(`${app} run ${i}: FAILED: ${run.error ?? `exit code ${run.exitCode ?? run.exitSignal}`}\n${run.output ?? ''}`);
      } else {
        log(
          `${app} run ${i}/${options.runs}: ready ${fmt(run.readyMs)} ms, RSS ${fmt(mib(run.rssKiB), 1)} MB ` +
            `(peak ${fmt(mib(run.hwmKiB), 1)}), exit ${run.exitCode} after ${fmt(run.exitMs)} ms`,
        );
      }
    }
    allRuns[app] = runs.map(({ output: _output, ...rest }) => rest);
    summaries.push(summarize(app, runs));
  }

  info.loadAverageAtEnd = machine().loadAverage;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ machine: info, runsPerApp: options.runs, pollMs: POLL_MS, idleMs: IDLE_MS, summaries, runs: allRuns }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(`${markdown(summaries, failures, info, options.runs)}\n`);
  }
  process.exit(failures.length ? 1 : 0);
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
