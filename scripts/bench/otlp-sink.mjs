#!/usr/bin/env node
// An OTLP/HTTP collector stand-in for benchmarks: answers every export with 200 and drops it,
// so a bench measures what exporting costs the exporting processes, not what a collector does.
// GET /health answers 200 once it listens. Port from OTLP_SINK_PORT.
import { createServer } from 'node:http';

const port = Number(process.env.OTLP_SINK_PORT);
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
