import 'reflect-metadata';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  validateSync,
  type ValidationError,
} from 'class-validator';
import { accessSync, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';

const DESCRIPTIONS = Symbol('waggle:env-descriptions');

export interface EnvVarInfo {
  name: string;
  description: string;
  secret: boolean;
}

/**
 * Declares a configuration variable. Every variable an app reads is a property of its
 * env class with one of these, so the whole configuration is listed (README, .env.example)
 * from the classes themselves.
 */
export function EnvVar(description: string, options: { secret?: boolean } = {}): PropertyDecorator {
  return (target, property) => {
    const own: EnvVarInfo[] = Reflect.getOwnMetadata(DESCRIPTIONS, target) ?? [...(Reflect.getMetadata(DESCRIPTIONS, target) ?? [])];
    own.push({ name: String(property), description, secret: options.secret ?? false });
    Reflect.defineMetadata(DESCRIPTIONS, own, target);
  };
}

export function describeEnv(envClass: new () => object): EnvVarInfo[] {
  return (Reflect.getMetadata(DESCRIPTIONS, envClass.prototype) as EnvVarInfo[] | undefined) ?? [];
}

/**
 * An app's env class, loaded by path from `<appsDir>/<app>/src/config/<app>.env`: tools
 * (.env.example) and tests (the Helm chart's per-app environment) list an app's variables
 * without importing the app, which the module boundaries forbid.
 */
export function loadAppEnvClass(appsDir: string, app: string): new () => BaseEnv {
  const exports = require(join(appsDir, app, 'src/config', `${app}.env`)) as Record<string, unknown>;
  const envClass = Object.values(exports).find((value): value is new () => BaseEnv => typeof value === 'function');
  if (!envClass) throw new Error(`apps/${app}/src/config/${app}.env exports no env class`);
  return envClass;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const NATS_SERVERS = /^(nats|tls|ws|wss):\/\/[^\s,]+(,(nats|tls|ws|wss):\/\/[^\s,]+)*$/;

/** The ways a process can authenticate to NATS, each by the variables that give it. */
const NATS_AUTHENTICATIONS = [['NATS_USER', 'NATS_PASSWORD'], ['NATS_TOKEN'], ['NATS_NKEY_SEED_FILE'], ['NATS_CREDS_FILE']] as const;
const NATS_AUTHENTICATION_LIST = 'NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE';

/** A server URL with userinfo (`user:password@`, `token@`): credentials that would end up in logs and process lists. */
function carriesCredentials(server: string): boolean {
  return /^[a-z]+:\/\/[^/?#]*@/i.test(server.trim());
}

/** NATS_URL names servers only; credentials have their own (secret) variables. */
function NatsServersOnly(): PropertyDecorator {
  return ValidateBy({
    name: 'natsServersOnly',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !value.split(',').some(carriesCredentials),
      defaultMessage: () => `NATS_URL must name servers only, without credentials: give them in ${NATS_AUTHENTICATION_LIST}`,
    },
  });
}

/** At most one way to authenticate to NATS: two would leave which one the server checks to chance. */
function OneNatsAuthentication(): PropertyDecorator {
  return ValidateBy({
    name: 'oneNatsAuthentication',
    validator: {
      validate: (_value: unknown, args) => {
        const env = args?.object as Record<string, unknown>;
        return NATS_AUTHENTICATIONS.filter((names) => names.some((name) => env[name] !== undefined)).length <= 1;
      },
      defaultMessage: () => `set one way to authenticate to NATS: ${NATS_AUTHENTICATION_LIST}`,
    },
  });
}

/** A file the process can read (a mounted Secret); checked at boot so a wrong path is a configuration error, not a connection failure. */
function IsReadableFile(): PropertyDecorator {
  return ValidateBy({
    name: 'isReadableFile',
    validator: {
      validate: (value: unknown) => {
        // A missing file is its pair's rule to report (IsString with the "go together" message).
        if (value === undefined) return true;
        if (typeof value !== 'string') return false;
        try {
          accessSync(value, fsConstants.R_OK);
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'must name a file this process can read',
    },
  });
}

const isSet =
  (...names: string[]) =>
  (env: object) =>
    names.some((name) => (env as Record<string, unknown>)[name] !== undefined);

/**
 * Variables every app reads. Defaults suit a laptop; production sets them explicitly.
 * Every property is explicitly typed: swc emits `design:type` only from annotations,
 * and loadConfig converts values by that type.
 */
export class BaseEnv {
  @EnvVar('development, production or test')
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @EnvVar('Minimum level of the JSON log lines written to stdout')
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @EnvVar('Address the HTTP server binds to')
  @IsString()
  HOST: string = '0.0.0.0';

  @EnvVar('HTTP port: the public API on the gateway, /health/* on every app')
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @EnvVar(
    'NATS server URL(s), comma-separated; servers only: a URL carrying credentials is refused (see NATS_USER, NATS_TOKEN, NATS_NKEY_SEED_FILE, NATS_CREDS_FILE)',
  )
  @Matches(NATS_SERVERS, { message: 'NATS_URL must be one or more nats:// URLs separated by commas' })
  @NatsServersOnly()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @EnvVar('NATS user name (with NATS_PASSWORD)')
  @ValidateIf(isSet('NATS_USER', 'NATS_PASSWORD'))
  @IsString({ message: 'NATS_USER and NATS_PASSWORD go together: set both' })
  @OneNatsAuthentication()
  NATS_USER?: string;

  @EnvVar('NATS password (with NATS_USER)', { secret: true })
  @ValidateIf(isSet('NATS_USER', 'NATS_PASSWORD'))
  @IsString({ message: 'NATS_USER and NATS_PASSWORD go together: set both' })
  NATS_PASSWORD?: string;

  @EnvVar('NATS authentication token', { secret: true })
  @IsOptional()
  @IsString()
  @OneNatsAuthentication()
  NATS_TOKEN?: string;

  @EnvVar(
    'File holding the NATS NKey seed (SU…) this process authenticates with, e.g. mounted from a Secret; read again on every reconnect',
  )
  @IsOptional()
  @IsReadableFile()
  @OneNatsAuthentication()
  NATS_NKEY_SEED_FILE?: string;

  @EnvVar(
    'NATS credentials file (.creds: user JWT and NKey seed, as nsc writes it), e.g. mounted from a Secret; read again on every reconnect',
  )
  @IsOptional()
  @IsReadableFile()
  @OneNatsAuthentication()
  NATS_CREDS_FILE?: string;

  @EnvVar(
    'PEM file of the certificate authorities that sign the NATS server certificate; set alone, it turns TLS on with the server verified',
  )
  @IsOptional()
  @IsReadableFile()
  NATS_TLS_CA_FILE?: string;

  @EnvVar('PEM client certificate for NATS servers that verify clients (TLS verify: true), with NATS_TLS_KEY_FILE')
  @ValidateIf(isSet('NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'))
  @IsString({ message: 'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both' })
  @IsReadableFile()
  NATS_TLS_CERT_FILE?: string;

  @EnvVar('PEM private key of NATS_TLS_CERT_FILE (a file, e.g. mounted from a Secret)')
  @ValidateIf(isSet('NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'))
  @IsString({ message: 'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both' })
  @IsReadableFile()
  NATS_TLS_KEY_FILE?: string;

  @EnvVar('How long a stopping process may finish in-flight work before it exits (ms)')
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS: number = 10_000;

  @EnvVar(
    'Run records a process keeps in memory while the ledger stream cannot take them (NATS away, the stream full); past it a new record is dead-lettered (logged, and sent to the ledger dead-letter table once NATS is back) rather than kept',
  )
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  LEDGER_MAX_PENDING_RECORDS: number = 10_000;

  @EnvVar('OTLP/HTTP endpoint for traces (e.g. http://otel-collector:4318); unset = no export')
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @EnvVar('service.name of the traces; defaults to waggle-<app>')
  @IsOptional()
  @IsString()
  OTEL_SERVICE_NAME?: string;

  @EnvVar(
    "Record model calls' messages, answers and tool definitions on their spans (gen_ai prompt and completion attributes); off by default, since they hold your users' content. API keys are never recorded",
  )
  @IsBoolean()
  OTEL_GENAI_CAPTURE_CONTENT: boolean = false;

  @EnvVar("Record a span for each PostgreSQL pool connect (pg-pool.connect); off by default, since they were most of a trace's spans")
  @IsBoolean()
  TRACE_DB_CONNECT_SPANS: boolean = false;
}

export class DatabaseEnv extends BaseEnv {
  @EnvVar('PostgreSQL connection URL; each service uses its own schema in this database', { secret: true })
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/waggle';
}

/** Variables of the domain services (every app that answers NATS requests): their database, and how much they take at once. */
export class ServiceEnv extends DatabaseEnv {
  @EnvVar(
    'NATS requests a service replica serves at once (a stream until it ends); one more is answered at once with 503 upstream_request_failed, which its caller relays with Retry-After, instead of waiting in memory. Health pings are never counted or refused',
  )
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  MAX_RPC_IN_FLIGHT: number = 256;

  @EnvVar(
    "Event-loop delay past which a service replica refuses new NATS requests at once (ms, time-weighted over the last second): answered 503 upstream_request_failed, relayed with Retry-After; health pings always answered. 0, the default, turns the check off: a service's loop also runs its queue workers (ingestion, workflow runs), whose bursts of CPU are background work that should not refuse a caller's request; MAX_RPC_IN_FLIGHT still bounds the intake",
  )
  @IsInt()
  @Min(0)
  @Max(60_000)
  MAX_EVENT_LOOP_DELAY_MS: number = 0;
}

// A mixin's base must be constructible with any arguments (TypeScript's mixin rule).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EnvConstructor = new (...args: any[]) => BaseEnv;

/** Adds REDIS_URL to an app's env class (meters, caches and BullMQ queues live in Redis). */
export function WithRedis<TBase extends EnvConstructor>(Base: TBase) {
  class RedisEnv extends Base {
    @EnvVar('Redis connection URL (meters, caches, BullMQ queues)', { secret: true })
    @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
    REDIS_URL: string = 'redis://127.0.0.1:6379';
  }
  return RedisEnv;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function convert(raw: string, type: unknown): unknown {
  if (type === Number) return raw.trim() === '' ? Number.NaN : Number(raw);
  if (type === Boolean) return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

function describeProblems(errors: ValidationError[]): string[] {
  // Values are not echoed: some variables hold credentials.
  return errors.map((error) => {
    const reasons = Object.values(error.constraints ?? {}).join('; ');
    return `${error.property}: ${reasons}`;
  });
}

/**
 * Reads and validates an app's configuration from the environment. Throws ConfigError
 * naming every bad variable; apps print it and refuse to start.
 */
export function loadConfig<T extends BaseEnv>(envClass: new () => T, source: NodeJS.ProcessEnv = process.env): T {
  const config = new envClass();
  const problems: string[] = [];
  for (const { name } of describeEnv(envClass)) {
    const raw = source[name];
    if (raw === undefined || raw === '') continue;
    const type: unknown = Reflect.getMetadata('design:type', envClass.prototype, name);
    const value = convert(raw, type);
    if (type === Number && Number.isNaN(value)) {
      problems.push(`${name}: must be a number`);
      continue;
    }
    (config as Record<string, unknown>)[name] = value;
  }
  problems.push(...describeProblems(validateSync(config, { forbidUnknownValues: false })));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * OpenAI-compatible hosts the model catalog can name, beside OpenAI, Anthropic and Google.
 * The provider layer knows the public hosts' base URLs, so only their keys are needed.
 */
const COMPATIBLE_HOSTS: ReadonlyArray<{ prefix: string; name: string; baseUrl: string }> = [
  { prefix: 'MISTRAL', name: 'Mistral AI', baseUrl: 'default https://api.mistral.ai/v1' },
  { prefix: 'DEEPSEEK', name: 'DeepSeek', baseUrl: 'default https://api.deepseek.com/v1' },
  { prefix: 'XAI', name: 'xAI', baseUrl: 'default https://api.x.ai/v1' },
  { prefix: 'GROQ', name: 'Groq', baseUrl: 'default https://api.groq.com/openai/v1' },
  { prefix: 'TOGETHER', name: 'Together AI', baseUrl: 'default https://api.together.xyz/v1' },
  { prefix: 'OPENROUTER', name: 'OpenRouter', baseUrl: 'default https://openrouter.ai/api/v1' },
  { prefix: 'OLLAMA', name: 'Ollama (a local one needs no key)', baseUrl: 'default http://127.0.0.1:11434/v1' },
  {
    prefix: 'FAKE',
    name: 'The fake provider (tools/fake-provider), provider `fake` of test catalogs',
    baseUrl: 'e.g. http://127.0.0.1:4010/v1',
  },
];

/**
 * Declares `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` of each host as the decorators on a
 * property would: the same eight pairs written out would differ only in their names.
 */
function declareCompatibleHosts(prototype: object): void {
  for (const { prefix, name, baseUrl } of COMPATIBLE_HOSTS) {
    const apiKey = `${prefix}_API_KEY`;
    EnvVar(`${name} API key`, { secret: true })(prototype, apiKey);
    IsOptional()(prototype, apiKey);
    IsString()(prototype, apiKey);
    const baseUrlVariable = `${prefix}_BASE_URL`;
    EnvVar(`${name} base URL (${baseUrl})`)(prototype, baseUrlVariable);
    IsOptional()(prototype, baseUrlVariable);
    IsUrl({ require_tld: false, protocols: ['http', 'https'] })(prototype, baseUrlVariable);
  }
}

/**
 * The model providers' credentials and base URLs, declared so they are validated,
 * documented and listed in .env.example. The provider layer takes the validated object
 * (ProvidersModule.forRoot) and reads nothing from the environment itself.
 */
export function WithProviderCredentials<TBase extends EnvConstructor>(Base: TBase) {
  class ProviderCredentialsEnv extends Base {
    @EnvVar('OpenAI API key', { secret: true })
    @IsOptional()
    @IsString()
    OPENAI_API_KEY?: string;

    @EnvVar('OpenAI base URL (an OpenAI-compatible proxy, or the fake provider)')
    @IsOptional()
    @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
    OPENAI_BASE_URL?: string;

    @EnvVar('Anthropic API key', { secret: true })
    @IsOptional()
    @IsString()
    ANTHROPIC_API_KEY?: string;

    @EnvVar('Anthropic base URL')
    @IsOptional()
    @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
    ANTHROPIC_BASE_URL?: string;

    @EnvVar('Google Generative AI API key', { secret: true })
    @IsOptional()
    @IsString()
    GOOGLE_GENERATIVE_AI_API_KEY?: string;

    @EnvVar('Google Generative AI base URL')
    @IsOptional()
    @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
    GOOGLE_GENERATIVE_AI_BASE_URL?: string;

    @EnvVar('How often a failed provider call (429, 5xx, network) is retried before provider_error')
    @IsInt()
    @Min(0)
    @Max(10)
    PROVIDER_MAX_RETRIES: number = 2;

    @EnvVar(
      "With fallbacks, how long a model call may wait for the provider's first byte before the next model is tried (a whole, non-streamed answer arrives as its first byte)",
    )
    @IsInt()
    @Min(100)
    @Max(3_600_000)
    PROVIDER_FIRST_BYTE_TIMEOUT_MS: number = 60_000;
  }
  declareCompatibleHosts(ProviderCredentialsEnv.prototype);
  return ProviderCredentialsEnv;
}

/** The search APIs a `web_search` step may call (`none`: web search is not configured). */
export const WEB_SEARCH_PROVIDER_CHOICES = ['searxng', 'brave', 'tavily', 'none'] as const;

/**
 * The workflow provider tools' settings (`web_search` and `scrape`), read by the provider
 * tools of @waggle/providers and @waggle/documents as they are (their WebToolSettings is this
 * shape). A chosen search provider without its URL or key is refused here, at start-up.
 */
export function WithWebTools<TBase extends EnvConstructor>(Base: TBase) {
  class WebToolsEnv extends Base {
    @EnvVar(
      `Search API of web_search workflow steps: ${WEB_SEARCH_PROVIDER_CHOICES.join(', ')} (none: web_search steps fail with not_configured)`,
    )
    @IsIn(WEB_SEARCH_PROVIDER_CHOICES)
    WEB_SEARCH_PROVIDER: (typeof WEB_SEARCH_PROVIDER_CHOICES)[number] = 'none';

    @EnvVar('Base URL of a SearXNG instance with the json format enabled (required when WEB_SEARCH_PROVIDER=searxng)')
    @ValidateIf(
      (env: { WEB_SEARCH_PROVIDER?: string; SEARXNG_URL?: string }) =>
        env.WEB_SEARCH_PROVIDER === 'searxng' || env.SEARXNG_URL !== undefined,
    )
    @IsUrl(
      { require_tld: false, protocols: ['http', 'https'] },
      { message: 'SEARXNG_URL must be an http(s) URL (required when WEB_SEARCH_PROVIDER=searxng)' },
    )
    SEARXNG_URL?: string;

    @EnvVar('Brave Search API key (required when WEB_SEARCH_PROVIDER=brave)', { secret: true })
    @ValidateIf(
      (env: { WEB_SEARCH_PROVIDER?: string; BRAVE_SEARCH_API_KEY?: string }) =>
        env.WEB_SEARCH_PROVIDER === 'brave' || env.BRAVE_SEARCH_API_KEY !== undefined,
    )
    @IsString({ message: 'BRAVE_SEARCH_API_KEY is required when WEB_SEARCH_PROVIDER=brave' })
    @Matches(/\S/, { message: 'BRAVE_SEARCH_API_KEY is required when WEB_SEARCH_PROVIDER=brave' })
    BRAVE_SEARCH_API_KEY?: string;

    @EnvVar('Brave Search API origin (the fake search server in tests)')
    @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
    BRAVE_SEARCH_BASE_URL: string = 'https://api.search.brave.com';

    @EnvVar('Tavily API key (required when WEB_SEARCH_PROVIDER=tavily)', { secret: true })
    @ValidateIf(
      (env: { WEB_SEARCH_PROVIDER?: string; TAVILY_API_KEY?: string }) =>
        env.WEB_SEARCH_PROVIDER === 'tavily' || env.TAVILY_API_KEY !== undefined,
    )
    @IsString({ message: 'TAVILY_API_KEY is required when WEB_SEARCH_PROVIDER=tavily' })
    @Matches(/\S/, { message: 'TAVILY_API_KEY is required when WEB_SEARCH_PROVIDER=tavily' })
    TAVILY_API_KEY?: string;

    @EnvVar('Tavily API origin (the fake search server in tests)')
    @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
    TAVILY_BASE_URL: string = 'https://api.tavily.com';

    @EnvVar('Time cap of one web search call and of one scrape, redirects and body included (ms)')
    @IsInt()
    @Min(100)
    @Max(600_000)
    WEB_TOOL_TIMEOUT_MS: number = 30_000;

    @EnvVar('Largest page body a scrape step reads (bytes); a larger page fails the step with too_large')
    @IsInt()
    @Min(1024)
    SCRAPE_MAX_BYTES: number = 5 * 1024 * 1024;

    @EnvVar('Characters of readable text a scrape step keeps; the rest is cut and the page marked truncated')
    @IsInt()
    @Min(100)
    SCRAPE_MAX_CHARS: number = 20_000;

    @EnvVar(
      'Comma-separated hosts, IP addresses or CIDR ranges a scrape step may reach although they are not public (e.g. 127.0.0.1 for local development). Empty in production',
    )
    @IsString()
    SCRAPE_URL_ALLOWLIST: string = '';
  }
  return WebToolsEnv;
}

/** One or more base64 keys of 32 bytes, comma-separated (spaces around the commas allowed). */
const WEBHOOK_SECRET_KEYRING = /^[A-Za-z0-9+/]{43}=(\s*,\s*[A-Za-z0-9+/]{43}=)*$/;

/** Adds the key that seals webhook secrets at rest (invocation, agent, callback-dispatcher). */
export function WithWebhookSecretKey<TBase extends EnvConstructor>(Base: TBase) {
  class WebhookSecretKeyEnv extends Base {
    @EnvVar(
      'Base64 of 32 random bytes (openssl rand -base64 32): seals webhook secrets in the database and Redis. A keyring during a key rotation: several such keys, comma-separated, newest first (the first seals, every key opens; docs/operations/webhook-secret-key.md). Required in production; development and tests use a fixed key when unset',
      { secret: true },
    )
    @ValidateIf((env: BaseEnv & { WEBHOOK_SECRET_KEY?: string }) => env.NODE_ENV === 'production' || Boolean(env.WEBHOOK_SECRET_KEY))
    @Matches(WEBHOOK_SECRET_KEYRING, {
      message:
        'WEBHOOK_SECRET_KEY must be the base64 of 32 bytes (openssl rand -base64 32), or several such keys separated by commas, newest first',
    })
    WEBHOOK_SECRET_KEY?: string;
  }
  return WebhookSecretKeyEnv;
}

/** Adds the settings of a service that owns webhook targets and their secrets (invocation, agent). */
export function WithWebhookOwner<TBase extends EnvConstructor>(Base: TBase) {
  class WebhookOwnerEnv extends Base {
    @EnvVar('How long a rotated-out webhook secret keeps working (seconds) when the rotation names no overlap')
    @IsInt()
    @Min(0)
    @Max(30 * 24 * 3600)
    WEBHOOK_SECRET_OVERLAP_SECONDS: number = 24 * 3600;

    @EnvVar('How often every webhook target is rewritten to the Redis registry (seconds; 0 = only at start and on change)')
    @IsInt()
    @Min(0)
    WEBHOOK_REGISTRY_RESYNC_SECONDS: number = 300;
  }
  return WebhookOwnerEnv;
}

/** Adds the operator's callback allowlist (gateway and callback-dispatcher). */
export function WithCallbackAllowlist<TBase extends EnvConstructor>(Base: TBase) {
  class CallbackAllowlistEnv extends Base {
    @EnvVar(
      'Comma-separated hosts, IP addresses or CIDR ranges a callback URL may name although they are not public https hosts (e.g. 127.0.0.1,::1 for local development). Empty in production',
    )
    @IsString()
    CALLBACK_URL_ALLOWLIST: string = '';
  }
  return CallbackAllowlistEnv;
}
