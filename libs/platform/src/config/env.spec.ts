import { randomBytes } from 'node:crypto';
import { BaseEnv, ConfigError, DatabaseEnv, describeEnv, loadConfig, WithRedis, WithWebhookSecretKey, WithWebTools } from './env';

class ServiceEnv extends WithRedis(DatabaseEnv) {
  override PORT: number = 3999;
}

describe('loadConfig', () => {
  it('uses the defaults, including a subclass default, when nothing is set', () => {
    const env = loadConfig(ServiceEnv, {});
    expect(env).toMatchObject({ PORT: 3999, NODE_ENV: 'development', REDIS_URL: 'redis://127.0.0.1:6379' });
  });

  it('converts numbers by the declared type', () => {
    expect(loadConfig(ServiceEnv, { PORT: '4100', SHUTDOWN_GRACE_MS: '2500' })).toMatchObject({ PORT: 4100, SHUTDOWN_GRACE_MS: 2500 });
  });

  it('names every bad variable and never echoes a value', () => {
    let error: unknown;
    try {
      loadConfig(ServiceEnv, { PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://root:topsecret@db/x', NATS_URL: 'http://nats' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message, problems } = error as ConfigError;
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'NATS_URL', 'PORT']);
    expect(message).not.toContain('topsecret');
  });

  it('describes every variable for the documentation', () => {
    const names = describeEnv(ServiceEnv).map((info) => info.name);
    expect(names).toEqual(
      expect.arrayContaining(['NODE_ENV', 'PORT', 'NATS_URL', 'DATABASE_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']),
    );
    expect(describeEnv(BaseEnv).map((info) => info.name)).not.toContain('DATABASE_URL');
    expect(describeEnv(ServiceEnv).find((info) => info.name === 'DATABASE_URL')?.secret).toBe(true);
  });
});

describe('WithWebTools', () => {
  class ToolsEnv extends WithWebTools(BaseEnv) {}

  const problemsOf = (source: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig(ToolsEnv, source);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('leaves web search unconfigured by default, with the documented caps', () => {
    expect(loadConfig(ToolsEnv, {})).toMatchObject({
      WEB_SEARCH_PROVIDER: 'none',
      BRAVE_SEARCH_BASE_URL: 'https://api.search.brave.com',
      WEB_TOOL_TIMEOUT_MS: 30_000,
      SCRAPE_MAX_BYTES: 5 * 1024 * 1024,
      SCRAPE_MAX_CHARS: 20_000,
      SCRAPE_URL_ALLOWLIST: '',
    });
  });

  it('refuses a chosen provider without its URL or key, naming the variable', () => {
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'brave' })).toEqual([
      expect.stringMatching(/^BRAVE_SEARCH_API_KEY: .*required when WEB_SEARCH_PROVIDER=brave/),
    ]);
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'searxng' })).toEqual([expect.stringMatching(/^SEARXNG_URL: /)]);
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'tavily' })).toEqual([expect.stringMatching(/^TAVILY_API_KEY: /)]);
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'bing' })).toEqual([expect.stringMatching(/^WEB_SEARCH_PROVIDER: /)]);
    expect(problemsOf({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'key', SCRAPE_MAX_CHARS: '10' })).toEqual([
      expect.stringMatching(/^SCRAPE_MAX_CHARS: /),
    ]);
  });

  it('reads a configured provider and keeps its key secret in the documentation', () => {
    expect(
      loadConfig(ToolsEnv, { WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://searxng:8080', WEB_TOOL_TIMEOUT_MS: '5000' }),
    ).toMatchObject({
      WEB_SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: 'http://searxng:8080',
      WEB_TOOL_TIMEOUT_MS: 5000,
    });
    const secrets = describeEnv(ToolsEnv)
      .filter((info) => info.secret)
      .map((info) => info.name);
    expect(secrets).toEqual(expect.arrayContaining(['BRAVE_SEARCH_API_KEY', 'TAVILY_API_KEY']));
    expect(secrets).not.toContain('SEARXNG_URL');
  });
});

describe('WithWebhookSecretKey', () => {
  class KeyEnv extends WithWebhookSecretKey(BaseEnv) {}
  const key = () => randomBytes(32).toString('base64');
  const problemsOf = (source: Record<string, string>) => {
    try {
      loadConfig(KeyEnv, source);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('takes one key or a comma-separated keyring, newest first', () => {
    const [newest, older] = [key(), key()];
    expect(problemsOf({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: newest })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: `${newest},${older}` })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: `${newest}, ${older}` })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'development' })).toEqual([]);
  });

  it('refuses a key that is not the base64 of 32 bytes, in the ring or alone, without echoing it', () => {
    const short = randomBytes(16).toString('base64');
    for (const value of [short, `${key()},${short}`, `${key()},`, 'x'.repeat(44)]) {
      const problems = problemsOf({ NODE_ENV: 'development', WEBHOOK_SECRET_KEY: value });
      expect(problems).toEqual([expect.stringMatching(/^WEBHOOK_SECRET_KEY: .*base64 of 32 bytes/)]);
      expect(problems[0]).not.toContain(value);
    }
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^WEBHOOK_SECRET_KEY: /)]);
    expect(describeEnv(KeyEnv).find((info) => info.name === 'WEBHOOK_SECRET_KEY')?.secret).toBe(true);
  });
});
