import { Logger, RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { LogLevel } from '@waggle/platform';
import type { Express, Request, Response } from 'express';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { AgentInvokeController } from '../agents/agent-invoke.controller';
import { RUN_STARTING_GUARDS } from '../auth/authenticated.decorator';
import { ChatCompletionsController } from '../openai/chat-completions.controller';
import { ResponsesController } from '../openai/responses.controller';
import { PromptInvokeController } from '../prompts/prompt-invoke.controller';
import { WorkflowInvokeController } from '../workflows/workflow-invoke.controller';

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
type Handler = (...args: unknown[]) => unknown;
interface RouterLayer {
  handle: Handler;
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ method?: string; handle: Handler }> };
  match(path: string): unknown;
}
type ExpressApp = Express & { router: { stack: RouterLayer[] }; request: object; response: object };

/** One step Express takes for the route's requests: a middleware, an error handler, or the route's handler (with its route). */
interface Step {
  handle: Handler;
  /** Called with the error as first argument, and only when there is one (Express's arity rule). */
  handlesErrors: boolean;
  route?: RouterLayer['route'];
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
 * The steps Express takes for `POST path`, in order: every middleware and error handler whose
 * path matches, and the handler of the first route that takes it (Nest's, for the controller
 * method: guards, pipes, the method, the exception filter). Read from the router once the app is
 * initialised, so whatever is mounted is run, in its order; undefined when no single-handler
 * route takes the path, and the path stays Express's.
 */
function stepsFor(app: ExpressApp, path: string): { steps: Step[]; route: NonNullable<RouterLayer['route']> } | undefined {
  const steps: Step[] = [];
  let route: RouterLayer['route'];
  for (const layer of app.router.stack) {
    if (!layer.match(path)) continue;
    if (!layer.route) {
      steps.push({ handle: layer.handle, handlesErrors: layer.handle.length === 4 });
      continue;
    }
    // A later route for the path runs only when the first calls next(), which Nest's handlers never do.
    if (route || !layer.route.methods.post) continue;
    const handlers = layer.route.stack;
    if (handlers.length !== 1 || handlers[0].method !== 'post' || handlers[0].handle.length === 4) return undefined;
    route = layer.route;
    steps.push({ handle: handlers[0].handle, handlesErrors: false, route });
  }
  return route && { steps, route };
}

/**
 * A short path for the run-starting routes, ahead of Express on the HTTP server: a `POST` to
 * exactly one of their paths (no query, no trailing slash, as the controllers spell it) with a
 * JSON body and no Content-Encoding is taken through the very steps Express's router would take
 * (the edge's middleware: request metrics, request id and trace context, access log, the OpenAI
 * and MCP edges, Host and query checks, the body parsers with their limits and their error
 * answers; then Nest's handler for the route), found once at boot, instead of Express matching
 * every layer's path against it on each request. Everything else (other methods, a CORS
 * preflight, odd paths, a compressed or non-JSON body) goes to Express unchanged.
 */
export function installShortPath(nest: NestExpressApplication, level: LogLevel): void {
  const logger = new Logger('ShortPath');
  const app = nest.getHttpAdapter().getInstance() as ExpressApp;
  const routes = new Map<string, { steps: Step[]; route: NonNullable<RouterLayer['route']> }>();
  for (const path of shortPathCandidates()) {
    const found = stepsFor(app, path);
    if (found) routes.set(path, found);
    else logger.warn({ route: `POST ${path}` }, 'served by Express: no single route handler takes it');
  }
  logger.log({ routes: [...routes.keys()].map((path) => `POST ${path}`) }, 'short path');
  // Which path served a request, for the tests that compare the two: only when debug lines are written at all.
  const traced = level === 'debug' || level === 'trace';
  const server = nest.getHttpServer() as Server;
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const found = request.method === 'POST' ? routes.get(request.url ?? '') : undefined;
    const type = request.headers['content-type'];
    if (found === undefined || type === undefined || !JSON_CONTENT_TYPE.test(type) || request.headers['content-encoding'] !== undefined) {
      for (const listener of listeners) listener.call(server, request, response);
      return;
    }
    if (traced) logger.debug({ route: found.route.path }, 'served by the short path');
    serve(app, found.steps, request as Request, response as Response);
  });
}

/** What Express's app.handle, router and layers do for a request whose steps are known. */
function serve(app: ExpressApp, steps: readonly Step[], request: Request, response: Response): void {
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(request, app.request);
  Object.setPrototypeOf(response, app.response);
  if (!response.locals) response.locals = Object.create(null) as Response['locals'];
  request.baseUrl = '';
  request.originalUrl = request.url;
  request.params = {};
  let index = 0;
  const next = (error?: unknown): void => {
    while (index < steps.length) {
      const step = steps[index++];
      // Without an error Express skips error handlers; with one, everything else.
      if (Boolean(error) !== step.handlesErrors) continue;
      try {
        if (step.route) request.route = step.route as Request['route'];
        const done = step.handlesErrors ? step.handle(error, request, response, next) : step.handle(request, response, next);
        // As Express 5 does with a handler's promise.
        if (done instanceof Promise) done.then(undefined, (rejected: unknown) => next(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
      return;
    }
    // Past Nest's own not-found and error handlers (mounted last): nothing Express would do differently.
    if (!response.headersSent) response.statusCode = 500;
    response.end();
  };
  next();
}
