import { Logger, RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { LogLevel } from '@waggle/platform';
import type { Express, NextFunction, Request, Response } from 'express';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { AgentInvokeController } from '../agents/agent-invoke.controller';
import { RUN_STARTING_GUARDS } from '../auth/authenticated.decorator';
import { ChatCompletionsController } from '../openai/chat-completions.controller';
import { ResponsesController } from '../openai/responses.controller';
import { PromptInvokeController } from '../prompts/prompt-invoke.controller';
import { WorkflowInvokeController } from '../workflows/workflow-invoke.controller';

export type EdgeMiddleware = (request: Request, response: Response, next: NextFunction) => void;
export type EdgeErrorHandler = (error: unknown, request: Request, response: Response, next: NextFunction) => void;

/** What Express runs ahead of every route but the MCP server's (configureGatewayApp): its middleware in order, and the handler of their errors. */
export interface GatewayEdge {
  middleware: readonly EdgeMiddleware[];
  onError: EdgeErrorHandler;
}

/**
 * The controllers whose routes the short path may serve: those of their POST routes that carry
 * RunStartingApiRoute's guards (the invoke routes, native and OpenAI-compatible), read from
 * Nest's own route metadata so the paths cannot drift from the controllers'.
 */
const RUN_STARTING_CONTROLLERS: ReadonlyArray<new (...args: never[]) => object> = [
  PromptInvokeController,
  WorkflowInvokeController,
  AgentInvokeController,
  ChatCompletionsController,
  ResponsesController,
];

/** Only a JSON body is taken; anything else (a form, no Content-Type) is Express's to answer. */
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;|$)/i;

/** The parts of Express's router the short path reads (router 2.x, Express 5's). */
interface RouterLayer {
  handle: (...args: unknown[]) => unknown;
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ method?: string; handle: ShortRoute['handle'] }> };
  match(path: string): boolean;
}
type ExpressApp = Express & { router: { stack: RouterLayer[] }; request: object; response: object };

/** One route the short path serves: the Express route object (request.route, as its router sets it) and Nest's handler for it. */
interface ShortRoute {
  route: NonNullable<RouterLayer['route']>;
  handle: (request: Request, response: Response, next: NextFunction) => unknown;
}

/** The paths the short path may serve, from the controllers' metadata. */
export function shortPathCandidates(): string[] {
  return RUN_STARTING_CONTROLLERS.flatMap(runStartingPaths);
}

/** `POST` paths of a controller's methods guarded as run-starting, joined as Nest joins them. */
function runStartingPaths(controller: new (...args: never[]) => object): string[] {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const classGuards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, controller) ?? [];
  const paths: string[] = [];
  const prototype = controller.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method = prototype[name];
    if (name === 'constructor' || typeof method !== 'function') continue;
    if (Reflect.getMetadata(METHOD_METADATA, method) !== RequestMethod.POST) continue;
    const guards: unknown[] = [...classGuards, ...((Reflect.getMetadata(GUARDS_METADATA, method) as unknown[] | undefined) ?? [])];
    if (guards.length !== RUN_STARTING_GUARDS.length || !RUN_STARTING_GUARDS.every((guard, index) => guards[index] === guard)) continue;
    const routePaths: unknown = Reflect.getMetadata(PATH_METADATA, method);
    for (const path of Array.isArray(routePaths) ? routePaths : [routePaths]) {
      const joined = `/${[prefix, String(path)]
        .map((part) => part.replace(/^\/+|\/+$/g, ''))
        .filter(Boolean)
        .join('/')}`;
      paths.push(joined);
    }
  }
  return paths;
}

/**
 * The route Express would run for `POST path`, when every layer it would pass through before it
 * is one of the edge's (so the short path runs exactly what Express does); otherwise undefined
 * and the path stays Express's.
 */
function routeFor(app: ExpressApp, path: string, edge: GatewayEdge): ShortRoute | undefined {
  const expected = [...edge.middleware];
  for (const layer of app.router.stack) {
    if (!layer.match(path)) continue;
    if (!layer.route) {
      if (layer.handle === edge.onError) continue;
      if (layer.handle !== expected.shift()) return undefined;
      continue;
    }
    if (!layer.route.methods.post) continue;
    const handlers = layer.route.stack;
    if (expected.length > 0 || handlers.length !== 1 || handlers[0].method !== 'post') return undefined;
    return { route: layer.route, handle: handlers[0].handle };
  }
  return undefined;
}

/**
 * A short path for the run-starting routes, ahead of Express on the HTTP server: a `POST` to
 * exactly one of their paths (no query, no trailing slash, as the controllers spell it) with a
 * JSON body and no Content-Encoding runs the very middleware Express runs ahead of it (request
 * metrics, request id and trace context, access log, the OpenAI and MCP edges, Host and query
 * checks, the body parsers with their limits, their error answers) and then Nest's handler for
 * the route (guards, pipes, the controller, the exception filter), without Express's router
 * matching every layer's path on the way. Everything else (other methods, a CORS preflight, odd
 * paths, a compressed or non-JSON body) goes to Express unchanged. A route whose layers are not
 * exactly the edge's (middleware added later) stays Express's, and says so at boot.
 */
export function installShortPath(nest: NestExpressApplication, edge: GatewayEdge, level: LogLevel): void {
  const logger = new Logger('ShortPath');
  const app = nest.getHttpAdapter().getInstance() as ExpressApp;
  const routes = new Map<string, ShortRoute>();
  for (const path of shortPathCandidates()) {
    const route = routeFor(app, path, edge);
    if (route) routes.set(path, route);
    else logger.warn({ route: `POST ${path}` }, 'served by Express: its layers are not the edge the short path runs');
  }
  logger.log({ routes: [...routes.keys()].map((path) => `POST ${path}`) }, 'short path');
  // Which path served a request, for the tests that compare the two: only when debug lines are written at all.
  const traced = level === 'debug' || level === 'trace';
  const server = nest.getHttpServer() as Server;
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const route = request.method === 'POST' ? routes.get(request.url ?? '') : undefined;
    const type = request.headers['content-type'];
    if (route === undefined || type === undefined || !JSON_CONTENT_TYPE.test(type) || request.headers['content-encoding'] !== undefined) {
      for (const listener of listeners) listener.call(server, request, response);
      return;
    }
    if (traced) logger.debug({ route: route.route.path }, 'served by the short path');
    serve(app, edge, route, request as Request, response as Response);
  });
}

/** As Express's app.handle and router do for a request that reaches `route`, without the path matching. */
function serve(app: ExpressApp, edge: GatewayEdge, route: ShortRoute, request: Request, response: Response): void {
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(request, app.request);
  Object.setPrototypeOf(response, app.response);
  if (!response.locals) response.locals = Object.create(null) as Response['locals'];
  request.baseUrl = '';
  request.originalUrl = request.url;
  request.params = {};
  let index = 0;
  // Past the route nothing is left but Express's final handler; Nest's handler answers every error itself.
  const fail = (error?: unknown) => edge.onError(error ?? new Error('the short path found no handler'), request, response, fail);
  const next = (error?: unknown): void => {
    if (error) return edge.onError(error, request, response, fail);
    try {
      const middleware = edge.middleware[index++];
      if (middleware) return middleware(request, response, next);
      request.route = route.route;
      const answered = route.handle(request, response, fail);
      // As Express 5 does for a handler's promise.
      if (answered instanceof Promise) answered.then(undefined, fail);
    } catch (error) {
      // As Express's layer does with what a handler throws.
      next(error);
    }
  };
  next();
}
