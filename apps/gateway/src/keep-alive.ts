import type { Server } from 'node:http';

/**
 * Idle keep-alive connections outlive the load balancer's idle time-out: otherwise the
 * gateway may close a socket just as the balancer sends the next request on it, and that
 * client gets a 502. Node closes a connection whose request headers take longer than
 * headersTimeout, which must therefore exceed keepAliveTimeout (and requestTimeout it).
 */
export function applyKeepAlive(server: Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1_000;
  if (server.requestTimeout > 0 && server.requestTimeout < server.headersTimeout) server.requestTimeout = server.headersTimeout;
}
