import express from 'express';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@waggle/platform';
import { GatewayEnv, isTraceUrlTemplate } from '../config/gateway.env';
import {
  CONSOLE_CONTENT_SECURITY_POLICY,
  CONSOLE_PATH,
  consoleConfigOf,
  isConsoleRoute,
  serveConsole,
  type ConsoleConfig,
} from './console-static';

/** An Express app with the console mounted as the gateway mounts it, and a stand-in API route behind. */
async function serve(buildDir: string, config?: ConsoleConfig): Promise<{ base: string; server: Server }> {
  const app = express();
  app.use(CONSOLE_PATH, serveConsole(buildDir, config));
  app.use((_request, response) => void response.status(404).json({ reached: 'api' }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('serveConsole', () => {
  const built = mkdtempSync(join(tmpdir(), 'waggle-console-'));
  mkdirSync(join(built, 'assets'));
  writeFileSync(join(built, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
  let base: string;
  let server: Server;
  let emptyBase: string;
  let emptyServer: Server;

  beforeAll(async () => {
    ({ base, server } = await serve(built));
    ({ base: emptyBase, server: emptyServer } = await serve(mkdtempSync(join(tmpdir(), 'waggle-console-empty-')), {
      trace_url_template: 'https://jaeger.example.com/trace/{trace_id}',
    }));
  });
  afterAll(() => {
    server.close();
    emptyServer.close();
  });

  it('serves a hashed asset as immutable, with the console CSP', async () => {
    const answer = await fetch(`${base}/console/assets/index-abc123.js`);
    expect([answer.status, await answer.text()]).toEqual([200, 'console.log(1)']);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each(['/console', '/console/', '/console/runs', '/console/runs/deep/link?status=failed'])(
    'answers index.html, never cached, for the app route %s',
    async (path) => {
      const answer = await fetch(`${base}${path}`);
      expect([answer.status, answer.headers.get('cache-control'), await answer.text()]).toEqual([
        200,
        'no-cache',
        '<!doctype html><title>console</title>',
      ]);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    },
  );

  it.each(['/console/assets/gone.js', '/console/%E0%A4%A', '/console/..%2f..%2fpackage.json', '/console/assets/..%5c..%5cindex.html'])(
    "answers %s with the catalog's 404",
    async (path) => {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toEqual(expect.objectContaining({ error_code: 'not_found', code: 'not_found' }));
    },
  );

  it('leaves other methods and every other path to the routes behind it', async () => {
    expect(await (await fetch(`${base}/console/runs`, { method: 'POST' })).json()).toEqual({ reached: 'api' });
    expect(await (await fetch(`${base}/consoles`)).json()).toEqual({ reached: 'api' });
    expect(await (await fetch(`${base}/v1/private/requests`)).json()).toEqual({ reached: 'api' });
  });

  it("answers the operator's config as JSON, never cached, built or not", async () => {
    const none = await fetch(`${base}/console/config.json`);
    expect([none.status, none.headers.get('cache-control'), await none.json()]).toEqual([200, 'no-cache', { trace_url_template: null }]);
    expect(none.headers.get('content-type')).toMatch(/^application\/json/);
    const set = await fetch(`${emptyBase}/console/config.json`);
    expect([set.status, await set.json()]).toEqual([200, { trace_url_template: 'https://jaeger.example.com/trace/{trace_id}' }]);
  });

  it("answers the catalog's 404 naming the missing build when the console is not built", async () => {
    const answer = await fetch(`${emptyBase}/console/runs`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual(
      expect.objectContaining({ error_code: 'not_found', message: expect.stringContaining('not built') }),
    );
  });
});

describe('isConsoleRoute', () => {
  it.each([
    ['/', true],
    ['/runs', true],
    ['/runs/r_1', true],
    ['/assets/x.js', false],
    ['/../x', false],
    ['/a/./b', false],
    ['/%E0%A4%A', false],
    ['/a%00b', false],
    ['/a%5cb', false],
  ])('%s → %p', (path, expected) => expect(isConsoleRoute(path)).toBe(expected));
});

describe('the trace link template', () => {
  it.each([
    ['https://jaeger.example.com/trace/{trace_id}', true],
    ['http://tempo:3200/explore?trace={trace_id}&x=1', true],
    ['https://jaeger.example.com/trace/', false],
    ['javascript:alert(1)//{trace_id}', false],
    ['ftp://host/{trace_id}', false],
    ['https://user:secret@host/{trace_id}', false],
    ['/relative/{trace_id}', false],
  ])('%s → %p', (template, expected) => expect(isTraceUrlTemplate(template)).toBe(expected));

  it('is served as null when unset', () => {
    expect(consoleConfigOf({ CONSOLE_TRACE_URL_TEMPLATE: '' })).toEqual({ trace_url_template: null });
    expect(consoleConfigOf({ CONSOLE_TRACE_URL_TEMPLATE: 'https://t/{trace_id}' })).toEqual({ trace_url_template: 'https://t/{trace_id}' });
  });

  it('is checked when the gateway starts: a bad template stops it, empty or unset is none', () => {
    const load = (template?: string) => loadConfig(GatewayEnv, { ...process.env, CONSOLE_TRACE_URL_TEMPLATE: template });
    expect(() => load('ftp://traces/{trace_id}')).toThrow(/CONSOLE_TRACE_URL_TEMPLATE must be an http\(s\) URL/);
    expect(() => load('https://traces.example.com/')).toThrow(/CONSOLE_TRACE_URL_TEMPLATE/);
    expect(load('https://traces.example.com/trace/{trace_id}').CONSOLE_TRACE_URL_TEMPLATE).toBe(
      'https://traces.example.com/trace/{trace_id}',
    );
    expect([load('').CONSOLE_TRACE_URL_TEMPLATE, load(undefined).CONSOLE_TRACE_URL_TEMPLATE]).toEqual(['', '']);
  });
});
