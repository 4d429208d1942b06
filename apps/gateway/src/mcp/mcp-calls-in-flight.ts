import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_ENV, REDIS_CLIENT } from '@waggle/platform';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import type { GatewayEnv } from '../config/gateway.env';
import type { McpCaller } from './mcp-caller';

/** A JSON-RPC request id: what a client's `notifications/cancelled` names. */
export type JsonRpcId = string | number;

/** How long past the longest sync run an entry is kept, should its call never say it ended (a replica gone). */
const KEPT_PAST_RUN_MS = 60_000;

/**
 * The runs of the tool calls 2025-era clients have in flight, by the client's key and the call's
 * JSON-RPC id, in Redis. Such a client cancels a call with `notifications/cancelled` POSTed on its
 * own (the spec's decisions, MCP: `notifications/cancelled` cancels the run), which the stateless
 * server may serve on any replica, in another request than the call's: this is how it finds the
 * run. Ids are the client's own, so two clients of one key may use the same one at once: a notice
 * naming an id more than one call in flight has is ambiguous and cancels nothing. Best effort: a
 * Redis failure leaves the call running as it would without a notice, and is logged.
 */
@Injectable()
export class McpCallsInFlight {
  private readonly logger = new Logger(McpCallsInFlight.name);
  private readonly keptMs: number;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(APP_ENV) env: GatewayEnv,
  ) {
    this.keptMs = env.SYNC_INVOKE_TIMEOUT_MS + KEPT_PAST_RUN_MS;
  }

  /** The call with this JSON-RPC id runs as `requestId` (until `ended`). */
  async started(caller: McpCaller, id: JsonRpcId, requestId: string): Promise<void> {
    const key = this.keyOf(caller, id);
    await this.redis
      .multi()
      .sadd(key, requestId)
      .pexpire(key, this.keptMs)
      .exec()
      .catch((error: unknown) => this.logger.warn({ err: error, request_id: requestId }, 'an MCP tool call could not be noted in flight'));
  }

  async ended(caller: McpCaller, id: JsonRpcId, requestId: string): Promise<void> {
    await this.redis
      .srem(this.keyOf(caller, id), requestId)
      .catch((error: unknown) => this.logger.warn({ err: error, request_id: requestId }, 'an MCP tool call could not be noted ended'));
  }

  /** The run of the one call in flight with this id; undefined for none, or for several (ambiguous). */
  async runOf(caller: McpCaller, id: JsonRpcId): Promise<string | undefined> {
    try {
      const runs = await this.redis.smembers(this.keyOf(caller, id));
      if (runs.length > 1)
        this.logger.warn({ runs }, 'an MCP cancel names a request id two calls of one key have in flight: neither is cancelled');
      return runs.length === 1 ? runs[0] : undefined;
    } catch (error) {
      this.logger.warn({ err: error }, 'the MCP tool calls in flight could not be read');
      return undefined;
    }
  }

  /** The client's id is any JSON string or number: hashed, so the key stays short whatever it is. */
  private keyOf(caller: McpCaller, id: JsonRpcId): string {
    const digest = createHash('sha256').update(JSON.stringify(id)).digest('hex').slice(0, 32);
    return `waggle:mcp:in-flight:${caller.auth.workspace_id}:${caller.auth.key_id}:${digest}`;
  }
}
