import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where ports are drawn from: below the kernel's ephemeral range (32768–60999 on Linux), which
 * outgoing connections and `listen(0)` take their local ports from. A port picked there could
 * be taken by one of them between this pick and the app's own bind (seen: an app failing with
 * EADDRINUSE at start-up); below it, only another explicit pick can take it.
 */
function pickRange(): { low: number; high: number } {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // Not Linux: the usual default.
  }
  const high = Math.max(ephemeralLow - 1, 11_000);
  return { low: Math.max(10_000, high - 15_000), high };
}

const RANGE = pickRange();
/** Ports this process handed out: never given twice, whether or not the app has bound them yet. */
const handedOut = new Set<number>();

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback TCP port nothing listens on right now, outside the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low + 1));
    if (handedOut.has(port)) continue;
    if (await listens(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${RANGE.low}–${RANGE.high}`);
}
