#!/usr/bin/env node
// The gateway's authenticated hot path: what API-key authentication, the daily meter and
// the NATS hop to a service add to a request (docs/benchmarks/gateway.md).
//
//   npm run build && node scripts/bench/gateway.mjs [--duration N] [--json]
//
// Starts its own catalog and gateway from dist/ on free loopback ports (after running the
// migrations), creates a workspace on the enterprise plan with the operator CLI, and
// drives two endpoints with autocannon:
//   - GET /v1/error_codes  no authentication, answered by the gateway alone (the baseline);
//   - GET /v1/models       Bearer key (cached 4 s in the gateway), one Redis Lua call for
//                          the daily meter, NATS request/reply to the catalog, which
//                          answers from its 5 s in-memory cache.
// After a 2 s warm-up at 8 connections per endpoint: N s at 1 connection (latency) and
// N s at 32 connections (throughput) per endpoint. Latency percentiles come both from
// autocannon's histogram (whole milliseconds) and from every response time it measured
// (fractional); CPU per process around each run comes from /proc.
// Needs PostgreSQL, Redis and NATS (scripts/ensure-infra.sh). Prints a Markdown report (or
// JSON with --json) on stdout; progress goes to stderr. Exits 1 when any request failed,
// timed out or answered non-2xx, or when the stack did not start.
import {
  exitUnlessBuilt,
  cannon as runCannon,
  EXIT_TIMEOUT_MS,
  fmt,
  freePort,
  httpRequest,
  log,
  machine,
  otherWaggleProcesses,
  runNode as runEntry,
  startProcess,
  stopProcess as stopApp,
  waitFor,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'catalog', 'gateway');

const WARMUP = { connections: 8, duration: 2 };
const THROUGHPUT_CONNECTIONS = 32;

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write('usage: node scripts/bench/gateway.mjs [--duration N] [--json]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const options = { duration: 10, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (arg === '--duration' || arg.startsWith('--duration=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (value === undefined) usage('--duration needs a value');
      options.duration = Number(value);
      if (!Number.isInteger(options.duration) || options.duration < 1) usage('--duration must be a whole number of seconds, at least 1');
    } else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument ${arg}`);
  }
  return options;
}

function appEnv(port) {
  return {
    ...process.env,
    ...(port === undefined ? {} : { PORT: String(port) }),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle',
  };
}

const get = (port, path, headers = {}) => httpRequest(port, path, { headers, timeoutMs: 2_000 });
const runNode = (entry, args, what) => runEntry(entry, args, appEnv(), what);

/** A built app as a child process on its port (see bench-lib's startProcess). */
function startApp(name, port) {
  // The same object, not a copy: startProcess records the exit on it.
  return Object.assign(startProcess(name, ENTRIES[name], appEnv(port)), { port });
}

/** Other Waggle apps share the NATS queue groups and may answer this bench's requests. */
const otherWaggleApps = (ownPids = []) =>
  otherWaggleProcesses(ownPids)
    .filter((other) => !other.what.startsWith('scripts/'))
    .map(({ pid, what }) => ({ pid, app: what }));

const cannon = (url, headers, connections, duration, { samples = false, apps = [] } = {}) =>
  runCannon({ url, headers, connections, duration, samples, procs: apps });

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB (${bytes} B)`;

function markdown(report) {
  const lines = [
    '| endpoint | body | p50 / p99 / avg at 1 conn, autocannon (ms) | p50 / p99 / mean at 1 conn, exact (ms) | req/s at 1 conn | req/s at 32 conn | non-2xx / errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const e of report.endpoints) {
    const a = e.sequential.autocannonLatencyMs;
    const x = e.sequential.exactLatencyMs;
    const bad = e.sequential.non2xx + e.concurrent.non2xx + e.warmup.non2xx;
    const errs =
      e.sequential.errors + e.sequential.timeouts + e.concurrent.errors + e.concurrent.timeouts + e.warmup.errors + e.warmup.timeouts;
    lines.push(
      `| ${e.label} | ${kib(e.bodyBytes)} | ${a.p50} / ${a.p99} / ${fmt(a.average)} | ${fmt(x.p50, 3)} / ${fmt(x.p99, 3)} / ${fmt(x.mean, 3)} | ${fmt(e.sequential.requestsPerSecond, 0)} | ${fmt(e.concurrent.requestsPerSecond, 0)} | ${bad} / ${errs} |`,
    );
  }
  lines.push(
    '',
    `CPU during the measured runs, in cores (the machine has ${report.machine.cores}); "bench" is this script with autocannon, "infra" NATS, Redis and PostgreSQL, "other" everything else on the machine:`,
    '',
    '| endpoint, connections | gateway | catalog | bench | infra | other | gateway CPU per request (ms) | catalog CPU per request (ms) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const e of report.endpoints) {
    for (const run of [e.sequential, e.concurrent]) {
      const c = run.cpuCores;
      lines.push(
        `| ${e.label}, ${run.connections} | ${fmt(c.gateway)} | ${fmt(c.catalog)} | ${fmt(c.bench)} | ${fmt(c.infra)} | ${fmt(c.other)} | ${fmt(run.cpuMsPerRequest.gateway, 3)} | ${fmt(run.cpuMsPerRequest.catalog, 3)} |`,
      );
    }
  }
  const d = report.added;
  lines.push(
    '',
    `Added by auth + meter + NATS hop (p50 of /v1/models − p50 of /v1/error_codes, 1 connection): ` +
      `${fmt(d.exactP50Ms, 3)} ms exact (${d.autocannonP50Ms} ms from autocannon's whole-millisecond histogram). ` +
      `Aim: under 1 ms — ${d.exactP50Ms < 1 ? 'met' : 'NOT met'}. The bodies differ (${report.endpoints.map((e) => `${e.label} ${kib(e.bodyBytes)}`).join(', ')}), so this is not a pure overhead figure.`,
    '',
    `${report.durationS} s per run after a ${WARMUP.duration} s warm-up at ${WARMUP.connections} connections per endpoint. ` +
      `Node ${report.machine.node}, ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.date}; ` +
      `load average at start ${report.machine.loadAverage}, at end ${report.machine.loadAverageAtEnd}.`,
  );
  if (report.otherWaggleApps.length) {
    lines.push(
      '',
      `Warning: other Waggle apps were running at the start or the end and share the NATS queue groups, so some requests may have been answered by them: ${report.otherWaggleApps.map((o) => `${o.app} (pid ${o.pid})`).join(', ')}.`,
    );
  }
  if (report.failures.length) lines.push('', 'Failures:', ...report.failures.map((failure) => `- ${failure}`));
  return lines.join('\n');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(ENTRIES);
  const info = machine();
  const others = otherWaggleApps();
  if (others.length) {
    log(
      `warning: other Waggle apps are running (${others.map((o) => `${o.app} pid ${o.pid}`).join(', ')}); they share NATS queue groups with this bench and may answer its requests`,
    );
  }

  log('running migrations (node dist/tools/migrate/src/main.js)');
  runNode(ENTRIES.migrate, [], 'migrations');

  const apps = [];
  let stopping = null;
  const stopAll = () => {
    stopping ??= Promise.all(apps.map(async (app) => ({ app: app.name, ...(await stopApp(app)) })));
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: stopping the apps`);
      void stopAll().then(() => process.exit(130));
    });
  }

  const failures = [];
  let report;
  try {
    const catalog = startApp('catalog', await freePort());
    apps.push(catalog);
    const gateway = startApp('gateway', await freePort());
    apps.push(gateway);
    log(`started catalog on :${catalog.port} (pid ${catalog.child.pid}) and gateway on :${gateway.port} (pid ${gateway.child.pid})`);
    for (const app of apps) await waitFor(app, 'live', async () => (await get(app.port, '/health/live')).status === 200);
    await waitFor(gateway, 'seeing the catalog up', async () => {
      const ready = await get(gateway.port, '/health/ready');
      try {
        return JSON.parse(ready.body?.toString() ?? '').services?.catalog?.status === 'up';
      } catch {
        return false;
      }
    });

    log('creating a workspace on the enterprise plan (node dist/tools/cli/src/main.js workspace create)');
    const created = JSON.parse(
      runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench', '--plan', 'enterprise', '--json'], 'workspace create'),
    );
    if (typeof created.api_key !== 'string') throw new Error(`workspace create printed no api_key: ${JSON.stringify(created)}`);
    const auth = { authorization: `Bearer ${created.api_key}` };

    const endpoints = [
      { label: 'GET /v1/error_codes', path: '/v1/error_codes', headers: {} },
      { label: 'GET /v1/models', path: '/v1/models', headers: auth },
    ];
    for (const endpoint of endpoints) {
      const answer = await get(gateway.port, endpoint.path, endpoint.headers);
      if (answer.status !== 200) throw new Error(`${endpoint.label} answered ${answer.status}: ${answer.body?.toString().slice(0, 500)}`);
      endpoint.bodyBytes = answer.body.length;
      endpoint.contentEncoding = answer.headers['content-encoding'] ?? 'identity';
      const parsed = JSON.parse(answer.body.toString());
      endpoint.items = Array.isArray(parsed) ? parsed.length : Array.isArray(parsed?.data) ? parsed.data.length : undefined;
      endpoint.url = `http://127.0.0.1:${gateway.port}${endpoint.path}`;
      log(`${endpoint.label}: 200, body ${kib(endpoint.bodyBytes)}${endpoint.items === undefined ? '' : `, ${endpoint.items} items`}`);
    }
    const modelsEndpoint = endpoints[1];
    if (!modelsEndpoint.items)
      throw new Error('GET /v1/models listed no models: the catalog is empty, so the bench would not measure a real listing');

    for (const endpoint of endpoints) {
      log(`${endpoint.label}: warm-up ${WARMUP.duration} s at ${WARMUP.connections} connections`);
      endpoint.warmup = await cannon(endpoint.url, endpoint.headers, WARMUP.connections, WARMUP.duration, { apps });
    }
    for (const endpoint of endpoints) {
      log(`${endpoint.label}: ${options.duration} s at 1 connection`);
      endpoint.sequential = await cannon(endpoint.url, endpoint.headers, 1, options.duration, { samples: true, apps });
      log(`${endpoint.label}: ${options.duration} s at ${THROUGHPUT_CONNECTIONS} connections`);
      endpoint.concurrent = await cannon(endpoint.url, endpoint.headers, THROUGHPUT_CONNECTIONS, options.duration, { apps });
      for (const [phase, run] of [
        ['warm-up', endpoint.warmup],
        ['1 connection', endpoint.sequential],
        [`${THROUGHPUT_CONNECTIONS} connections`, endpoint.concurrent],
      ]) {
        if (run.failed)
          failures.push(
            `${endpoint.label}, ${phase}: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodes)}), ${run.errors} errors, ${run.timeouts} time-outs`,
          );
      }
      log(
        `${endpoint.label}: p50 ${fmt(endpoint.sequential.exactLatencyMs.p50, 3)} ms, p99 ${fmt(endpoint.sequential.exactLatencyMs.p99, 3)} ms at 1 connection; ` +
          `${fmt(endpoint.concurrent.requestsPerSecond, 0)} req/s at ${THROUGHPUT_CONNECTIONS}`,
      );
    }
    const [baseline, models] = endpoints;
    report = {
      durationS: options.duration,
      warmup: WARMUP,
      throughputConnections: THROUGHPUT_CONNECTIONS,
      machine: info,
      otherWaggleApps: [...others],
      endpoints: endpoints.map(({ headers: _headers, url: _url, ...rest }) => rest),
      added: {
        exactP50Ms: models.sequential.exactLatencyMs.p50 - baseline.sequential.exactLatencyMs.p50,
        autocannonP50Ms: models.sequential.autocannonLatencyMs.p50 - baseline.sequential.autocannonLatencyMs.p50,
        exactMeanMs: models.sequential.exactLatencyMs.mean - baseline.sequential.exactLatencyMs.mean,
      },
      failures,
    };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    const stops = await stopAll();
    for (const stop of stops) {
      if (stop.alreadyExited) failures.push(`${stop.app} exited on its own during the bench (code ${stop.code}, signal ${stop.signal})`);
      else if (stop.killed) failures.push(`${stop.app} still running ${EXIT_TIMEOUT_MS / 1000} s after SIGTERM (killed)`);
      else if (stop.code !== 0) failures.push(`${stop.app} exited with ${stop.code ?? stop.signal} after SIGTERM`);
    }
    if (report) report.stops = stops;
  }

  if (!report) {
    for (const failure of failures) log(`FAILED: ${failure}`);
    process.exit(1);
  }
  report.machine.loadAverageAtEnd = machine().loadAverage;
  // Apps started by someone else while the bench ran (its own are stopped by now).
  for (const other of otherWaggleApps()) {
    if (!report.otherWaggleApps.some((known) => known.pid === other.pid)) report.otherWaggleApps.push(other);
  }
  if (report.otherWaggleApps.length > others.length) {
    log(
      `warning: other Waggle apps started during the bench (${report.otherWaggleApps
        .slice(others.length)
        .map((o) => `${o.app} pid ${o.pid}`)
        .join(', ')})`,
    );
  }
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${markdown(report)}\n`);
  if (failures.length) for (const failure of failures) log(`FAILED: ${failure}`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
