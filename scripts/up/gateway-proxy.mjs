// The public address in front of N gateway replicas: round robin over the gateways
// that answer, bodies streamed both ways (SSE included), 502 in the project's error
// shape when none does. Only `npm run up -- --replicas N` uses it; a real deployment
// has its own load balancer.
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { pickUpstream } from './plan.mjs';

// Headers about one connection, not the request: each hop sets its own.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
// A reused keep-alive socket the gateway closed (or a killed gateway's) fails on write;
// these methods may be sent again because the gateway never answered them.
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const PROBE_INTERVAL_MS = 200;

function hopByHopNames(connectionHeader) {
  const names = new Set(HOP_BY_HOP);
  for (const name of String(connectionHeader ?? '').split(',')) if (name.trim()) names.add(name.trim().toLowerCase());
  return names;
}

/**
 * The 502 body, from the built error catalog (dist/), exactly as the gateway shapes it.
 * The proxy cannot know a workspace's language, so it answers in the default one.
 */
export function unavailableBodyFromCatalog(root) {
  const { toErrorBody, WaggleException, DEFAULT_LOCALE } = createRequire(import.meta.url)(join(root, 'dist/libs/errors/src/index.js'));
  return toErrorBody(new WaggleException('upstream_request_failed'), DEFAULT_LOCALE);
}

export class GatewayProxy {
  /**
   * @param upstreams  [{ name, port }] on 127.0.0.1, all down until started and answering
   * @param unavailableBody  the JSON body of the 502 (upstream_request_failed)
   * @param log  where routing changes the supervisor did not cause are reported
   */
  constructor({ upstreams, unavailableBody, log = () => {} }) {
    // `probing` tells a probe still in flight whether its answer still counts.
    this.upstreams = upstreams.map(({ name, port }) => ({ name, port, up: false, probe: null, probing: 0 }));
    this.unavailableBody = JSON.stringify(unavailableBody);
    this.log = log;
    this.cursor = 0;
    this.agent = new http.Agent({ keepAlive: true });
    this.server = http.createServer((req, res) => {
      const exchange = { req, res, tried: new Set(), upstreamRequest: null };
      // An aborted upload is dealt with on 'close' below; its error alone must not end the supervisor.
      req.on('error', () => {});
      // A client that goes away mid-request (or mid-stream) takes the gateway's request with it.
      res.on('close', () => {
        if (!res.writableFinished) exchange.upstreamRequest?.destroy();
      });
      this.forward(exchange);
    });
  }

  listen(port, host) {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close() {
    for (const upstream of this.upstreams) {
      upstream.probing += 1;
      clearTimeout(upstream.probe);
    }
    this.agent.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** A gateway process was (re)started: route to it once it answers /health/live. */
  upstreamStarted(name) {
    this.startProbing(this.byName(name));
  }

  /** A gateway process exited: route around it, and forget its pooled connections. */
  upstreamExited(name) {
    const upstream = this.byName(name);
    upstream.up = false;
    upstream.probing += 1;
    clearTimeout(upstream.probe);
    upstream.probe = null;
    for (const socket of this.agent.freeSockets[this.agent.getName({ host: '127.0.0.1', port: upstream.port })] ?? []) socket.destroy();
  }

  byName(name) {
    const upstream = this.upstreams.find((candidate) => candidate.name === name);
    if (!upstream) throw new Error(`no upstream named ${name}`);
    return upstream;
  }

  startProbing(upstream) {
    upstream.up = false;
    const generation = (upstream.probing += 1);
    clearTimeout(upstream.probe);
    const again = () => {
      if (upstream.probing === generation) upstream.probe = setTimeout(probe, PROBE_INTERVAL_MS);
    };
    const probe = () => {
      const request = http.get(
        { host: '127.0.0.1', port: upstream.port, path: '/health/live', agent: false, timeout: 1_000 },
        (response) => {
          response.resume();
          if (upstream.probing !== generation) return;
          if (response.statusCode === 200) {
            upstream.up = true;
            upstream.probe = null;
          } else again();
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', again);
    };
    probe();
  }

  markRefused(upstream) {
    if (!upstream.up) return;
    this.log(`${upstream.name} refused a connection; routing around it until it answers again`);
    this.startProbing(upstream);
  }

  forward(exchange) {
    const { req, res, tried } = exchange;
    const index = pickUpstream(this.upstreams, this.cursor, tried);
    if (index === -1) return this.answerUnavailable(req, res);
    this.cursor = (index + 1) % this.upstreams.length;
    tried.add(index);
    const upstream = this.upstreams[index];

    const dropped = hopByHopNames(req.headers.connection);
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) if (!dropped.has(name)) headers[name] = value;
    // This server already answered `Expect: 100-continue`; the gateway gets the body at once.
    delete headers.expect;
    const client = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;

    const upstreamRequest = http.request({
      host: '127.0.0.1',
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent: this.agent,
    });
    exchange.upstreamRequest = upstreamRequest;
    let connected = false;
    let bodyBytesSent = 0;
    let answered = false;
    const countBody = (chunk) => (bodyBytesSent += chunk.length);
    const sendBody = () => {
      connected = true;
      // A request already read to its end (an empty body, or a retry of one) has nothing left to pipe.
      if (req.readableEnded) return upstreamRequest.end();
      req.on('data', countBody);
      req.pipe(upstreamRequest);
    };
    // The body is held back until the connection is made, so a refused gateway has read
    // none of it and the request can go to the next one whole.
    upstreamRequest.on('socket', (socket) => (socket.connecting ? socket.once('connect', sendBody) : sendBody()));

    upstreamRequest.on('error', (error) => {
      req.off('data', countBody);
      req.unpipe(upstreamRequest);
      if (answered || res.destroyed) return res.destroy();
      const refused = !connected && CONNECTION_ERRORS.has(error.code);
      const staleSocket =
        connected && upstreamRequest.reusedSocket && bodyBytesSent === 0 && IDEMPOTENT.has(req.method) && CONNECTION_ERRORS.has(error.code);
      if (refused) this.markRefused(upstream);
      if (refused || staleSocket) return this.forward(exchange);
      this.answerUnavailable(req, res);
    });

    upstreamRequest.on('response', (upstreamResponse) => {
      answered = true;
      const responseDropped = hopByHopNames(upstreamResponse.headers.connection);
      const rawHeaders = [];
      for (let i = 0; i < upstreamResponse.rawHeaders.length; i += 2) {
        if (!responseDropped.has(upstreamResponse.rawHeaders[i].toLowerCase()))
          rawHeaders.push(upstreamResponse.rawHeaders[i], upstreamResponse.rawHeaders[i + 1]);
      }
      res.writeHead(upstreamResponse.statusCode, upstreamResponse.statusMessage, rawHeaders);
      // An event stream's client must see the status before the first event.
      res.flushHeaders();
      // A client that goes away closes the gateway's response too (it cancels a streaming run).
      pipeline(upstreamResponse, res, () => {});
    });
  }

  answerUnavailable(req, res) {
    req.resume();
    if (res.headersSent) return res.destroy();
    res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(this.unavailableBody) });
    res.end(this.unavailableBody);
  }
}
