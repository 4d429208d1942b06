// `helm test <release>` (templates/tests/connection.yaml) runs this with the Waggle image's
// node: it checks that the release reaches PostgreSQL, Redis and every NATS server (a TCP
// connection to each host and port its URL names), then that the gateway answers
// /health/ready with 200 (which itself needs NATS, Redis and the services behind it).
// Inputs: DATABASE_URL, REDIS_URL, NATS_URL (comma-separated), GATEWAY_READY_URL (optional).
// Prints one line per check and exits 1 when any fails. Never prints a URL's credentials.
'use strict';
const net = require('node:net');

const TIMEOUT_MS = Number(process.env.CHECK_TIMEOUT_MS || 5000);

function endpoint(raw, defaultPort) {
  const url = new URL(raw.trim());
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || defaultPort) };
}

function reach(label, { host, port }) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (error) => {
      socket.destroy();
      resolve({ label: `${label} ${host}:${port}`, error });
    };
    socket.setTimeout(TIMEOUT_MS, () => done('timed out'));
    socket.once('connect', () => done(null));
    socket.once('error', (error) => done(error.code || error.message));
  });
}

async function ready(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { label: `gateway ${url}`, error: response.status === 200 ? null : `answered ${response.status}` };
  } catch (error) {
    return { label: `gateway ${url}`, error: error.cause?.code || error.message };
  }
}

async function main() {
  const checks = [];
  const missing = ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'].filter((name) => !process.env[name]);
  for (const name of missing) checks.push(Promise.resolve({ label: name, error: 'is not set' }));
  if (process.env.DATABASE_URL) checks.push(reach('postgresql', endpoint(process.env.DATABASE_URL, 5432)));
  if (process.env.REDIS_URL) checks.push(reach('redis', endpoint(process.env.REDIS_URL, 6379)));
  for (const server of (process.env.NATS_URL || '').split(',').filter((s) => s.trim())) {
    checks.push(reach('nats', endpoint(server, 4222)));
  }
  const results = await Promise.all(checks);
  if (process.env.GATEWAY_READY_URL) results.push(await ready(process.env.GATEWAY_READY_URL));
  for (const { label, error } of results) console.log(`${error ? 'FAIL' : 'ok  '} ${label}${error ? `: ${error}` : ''}`);
  process.exitCode = results.some((r) => r.error) ? 1 : 0;
}

main().catch((error) => {
  console.error(`FAIL ${error.message}`);
  process.exitCode = 1;
});
