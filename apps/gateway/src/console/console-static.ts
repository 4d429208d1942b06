import { Logger } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { static as serveStatic, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { sendError } from '../errors/http-exception.filter';

/** Where the gateway serves the web console (apps/console, built by `npm run build`). */
export const CONSOLE_PATH = '/console';

/**
 * The console's bundle beside the gateway's compiled code: dist/apps/console from
 * dist/apps/gateway/src/console (the layout of `npm run build`, in a checkout and in the image).
 */
export const CONSOLE_BUILD_DIR = join(__dirname, '..', '..', '..', 'console');

/**
 * The console's own scripts and styles only, talking to this origin only, never framed.
 * Styles allow 'unsafe-inline': Mantine sets CSS variables in style attributes and one
 * <style> element; scripts stay 'self' (no inline script, no eval).
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite's content-hashed output: a changed file gets a new name, so a copy never goes stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HASHED_ASSETS = `${sep}assets${sep}`;

const consoleErrors = new Logger('Console');

/**
 * A path the single-page app routes (`/`, `/runs`, `/runs/…`): decodable, no `.` or `..`
 * segment, no file extension on its last segment. A miss that looks like a file
 * (`/assets/gone.js`) answers 404 rather than the page.
 */
export function isConsoleRoute(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return false;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) return false;
  return !segments[segments.length - 1].includes('.');
}

/**
 * What the console reads at start from `GET /console/config.json`: the operator's settings for
 * every user of this gateway. Never a secret: it is served to anyone, without a key.
 */
export interface ConsoleConfig {
  /** A link to the operator's trace UI with `{trace_id}` where a run's trace id goes; null for none. */
  trace_url_template: string | null;
}

export const CONSOLE_CONFIG_PATH = '/config.json';

/** The console's config from the gateway's validated env (an empty setting is none). */
export function consoleConfigOf(env: { CONSOLE_TRACE_URL_TEMPLATE: string }): ConsoleConfig {
  return { trace_url_template: env.CONSOLE_TRACE_URL_TEMPLATE === '' ? null : env.CONSOLE_TRACE_URL_TEMPLATE };
}

/**
 * The console's static files, mounted on CONSOLE_PATH only (never in front of the API): a file
 * of the build as it is (hashed assets cached for good), index.html for any other app route
 * (the SPA fallback; never cached, so a new build is picked up at once), the operator's
 * ConsoleConfig at /config.json, the catalog's 404 for a
 * missing file, a traversal or an undecodable path, and for every path when the console is not
 * built. Other methods than GET and HEAD go on to the gateway's own 404.
 */
export function serveConsole(buildDir: string = CONSOLE_BUILD_DIR, config: ConsoleConfig = { trace_url_template: null }): RequestHandler {
  const configBody = JSON.stringify(config);
  const index = join(buildDir, 'index.html');
  const files = serveStatic(buildDir, {
    index: false,
    redirect: false,
    fallthrough: true,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders: (response, path) => response.setHeader('cache-control', path.includes(HASHED_ASSETS) ? IMMUTABLE : 'no-cache'),
  });
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    response.setHeader('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY);
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('referrer-policy', 'no-referrer');
    response.setHeader('cross-origin-opener-policy', 'same-origin');
    // The operator's settings, answered whether or not the console is built (never cached, so a changed setting shows at the next load).
    if (request.path === CONSOLE_CONFIG_PATH) {
      response.setHeader('cache-control', 'no-cache');
      response.type('application/json');
      response.send(configBody);
      return;
    }
    files(request, response, () => {
      if (!existsSync(index))
        return sendError(new WaggleException('not_found', { detail: 'console_not_built' }), request, response, consoleErrors);
      if (!isConsoleRoute(request.path))
        return sendError(new WaggleException('not_found', { detail: 'console_file_not_found' }), request, response, consoleErrors);
      response.sendFile(index, { cacheControl: false, headers: { 'cache-control': 'no-cache' } }, (error?: unknown) => {
        if (error) sendError(error, request, response, consoleErrors);
      });
    });
  };
}
