import { BaseEnv, ConfigError, DatabaseEnv, describeEnv, loadConfig, WithRedis } from './env';

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
    expect(names).toEqual(expect.arrayContaining(['NODE_ENV', 'PORT', 'NATS_URL', 'DATABASE_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    expect(describeEnv(BaseEnv).map((info) => info.name)).not.toContain('DATABASE_URL');
    expect(describeEnv(ServiceEnv).find((info) => info.name === 'DATABASE_URL')?.secret).toBe(true);
  });
});
