import { BaseEnv, EnvVar, WithCallbackAllowlist, WithRedis } from '@waggle/platform';
import { IsInt, IsString, Max, Min, ValidateBy, ValidateIf } from 'class-validator';

/** The placeholder of CONSOLE_TRACE_URL_TEMPLATE that the console replaces with a run's trace id. */
export const TRACE_ID_PLACEHOLDER = '{trace_id}';

/** A trace UI link template: an absolute http(s) URL once its `{trace_id}` placeholder is filled in, which it must have. */
export function isTraceUrlTemplate(value: unknown): boolean {
  if (typeof value !== 'string' || !value.includes(TRACE_ID_PLACEHOLDER)) return false;
  try {
    const url = new URL(value.replaceAll(TRACE_ID_PLACEHOLDER, '0'.repeat(32)));
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export class GatewayEnv extends WithCallbackAllowlist(WithRedis(BaseEnv)) {
  @EnvVar('How long the gateway waits for a service to answer a request over NATS (ms)')
  @IsInt()
  @Min(100)
  @Max(900_000)
  NATS_REQUEST_TIMEOUT_MS: number = 10_000;

  @EnvVar(
    'How long a synchronous or streamed prompt, agent or workflow invoke may wait for its run (decisions: 300 s); a run still going then answers 504 (ms)',
  )
  @IsInt()
  @Min(1_000)
  @Max(900_000)
  SYNC_INVOKE_TIMEOUT_MS: number = 300_000;

  @EnvVar('Largest JSON request body accepted; larger bodies answer 413 (bytes)')
  @IsInt()
  @Min(1_024)
  @Max(100 * 1024 * 1024)
  MAX_JSON_BODY_BYTES: number = 5 * 1024 * 1024;

  @EnvVar('How long the gateway waits for the asset service to store an upload (hashing it and writing it to the asset storage) (ms)')
  @IsInt()
  @Min(1_000)
  @Max(900_000)
  ASSET_STORE_TIMEOUT_MS: number = 120_000;

  @EnvVar(
    'How long an idle keep-alive connection stays open (ms; sent as Keep-Alive: timeout=…). Longer than the idle time-out of the load balancer in front (60 s on most), so the balancer never reuses a socket the gateway is closing',
  )
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 65_000;

  @EnvVar(
    'Requests the gateway serves at once, counted from arrival to the end of the answer (a stream until it ends); one more is answered at once with 503 upstream_request_failed and Retry-After, its body unread, instead of waiting behind them. /health/live and /health/ready are never counted or refused',
  )
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  MAX_HTTP_IN_FLIGHT: number = 128;

  @EnvVar(
    'Event-loop delay past which the gateway refuses new HTTP requests at once (ms, time-weighted over the last second): answered 503 upstream_request_failed with Retry-After while the loop lags more than this; /health/* is always served. 0 turns the check off',
  )
  @IsInt()
  @Min(0)
  @Max(60_000)
  MAX_EVENT_LOOP_DELAY_MS: number = 200;

  @EnvVar(
    'Port of the Prometheus listener (GET /metrics), kept apart from PORT so that the public address never serves metrics; 0 picks a free port (tests)',
  )
  @IsInt()
  @Min(0)
  @Max(65_535)
  METRICS_PORT: number = 9464;

  @EnvVar(
    'Browser origins allowed to call the OpenAI-compatible API (/openai/v1/*): comma-separated origins (https://chat.example.com), or * for any. Empty (the default) allows none; a preflight from an allowed origin echoes the headers it asks for (the OpenAI SDKs send x-stainless-*)',
  )
  @IsString()
  OPENAI_CORS_ORIGINS: string = '';

  @EnvVar(
    'Browser origins allowed to call the MCP server (POST /v1/mcp): comma-separated origins (https://app.example.com), compared by scheme, host and port. A request that sends an Origin header not listed is refused (403); empty (the default) allows none. Requests without Origin (MCP clients outside a browser) are not affected',
  )
  @IsString()
  MCP_ALLOWED_ORIGINS: string = '';

  @EnvVar(
    "Usage governance: the answer tokens a run-starting request is expected to use when its body gives no max_tokens, max_completion_tokens or max_output_tokens; with its prompt (a token per 4 bytes of the body) it is the estimate reserved against a tokens-per-minute limit before the run, replaced by the run's real tokens when it ends",
  )
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  GOVERNANCE_DEFAULT_COMPLETION_TOKENS: number = 1024;

  @EnvVar(
    "Usage governance: what a run reserves against each budget of its scopes before it starts, until the workspace's ended runs have taught an estimate of their cost (micro-USD; 20000 = $0.02). Released when the run's ledger record ends",
  )
  @IsInt()
  @Min(0)
  @Max(1_000_000_000_000)
  GOVERNANCE_DEFAULT_RUN_RESERVATION_MICROS: number = 20_000;

  @EnvVar(
    "Usage governance: how long a run's budget and token reservation holds when its ledger record never ends (a lost replica); past it the reservation stops counting (ms)",
  )
  @IsInt()
  @Min(60_000)
  @Max(86_400_000)
  GOVERNANCE_RESERVATION_TTL_MS: number = 900_000;

  @EnvVar(
    "The web console's link from a run's trace id to the operator's trace UI: an http(s) URL with {trace_id} where the id goes (https://jaeger.example.com/trace/{trace_id}). Served to the console in /console/config.json; empty (the default) shows the trace id without a link",
  )
  @ValidateIf((env: { CONSOLE_TRACE_URL_TEMPLATE?: string }) => env.CONSOLE_TRACE_URL_TEMPLATE !== '')
  @ValidateBy({
    name: 'isTraceUrlTemplate',
    validator: {
      validate: isTraceUrlTemplate,
      defaultMessage: () =>
        'CONSOLE_TRACE_URL_TEMPLATE must be an http(s) URL, without user or password, with {trace_id} where the trace id goes',
    },
  })
  CONSOLE_TRACE_URL_TEMPLATE: string = '';
}
