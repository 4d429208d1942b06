import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyKeepAlive } from './keep-alive';

/** The response headers of one keep-alive request to `server`. */
function headersFrom(server: Server): Promise<IncomingHttpHeaders> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', headers: { connection: 'keep-alive' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.headers));
    }).on('error', reject);
  });
}

describe('applyKeepAlive', () => {
  let server: Server;

  beforeEach(async () => {
    server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('announces the configured idle time-out and keeps the header time-out above it', async () => {
    applyKeepAlive(server, 70_000);
    expect(server.keepAliveTimeout).toBe(70_000);
    expect(server.headersTimeout).toBe(71_000);
    expect((await headersFrom(server))['keep-alive']).toBe('timeout=70');
  });

  it('raises the request time-out when the header time-out would pass it', () => {
    applyKeepAlive(server, 400_000);
    expect(server.headersTimeout).toBe(401_000);
    expect(server.requestTimeout).toBe(401_000);
  });
});
