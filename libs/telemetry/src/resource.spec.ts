import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waggleResource, waggleVersion } from './resource';

describe('the resource every span and metric carries', () => {
  const saved = { attributes: process.env.OTEL_RESOURCE_ATTRIBUTES, name: process.env.OTEL_SERVICE_NAME };

  afterEach(() => {
    for (const [variable, value] of [
      ['OTEL_RESOURCE_ATTRIBUTES', saved.attributes],
      ['OTEL_SERVICE_NAME', saved.name],
    ] as const) {
      if (value === undefined) delete process.env[variable];
      else process.env[variable] = value;
    }
  });

  it('takes service.version from the root package.json, from source and from dist alike', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    expect(waggleVersion()).toBe(version);
    expect(waggleVersion(join(__dirname, '../../../dist/libs/telemetry/src'))).toBe(version);
    expect(waggleVersion('/')).toBe('unknown');
  });

  it('names the app and its version, and adds OTEL_RESOURCE_ATTRIBUTES, which may override them', () => {
    delete process.env.OTEL_SERVICE_NAME;
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment.name=staging,k8s.namespace.name=waggle';
    expect(waggleResource('gateway').attributes).toMatchObject({
      'service.name': 'waggle-gateway',
      'service.version': waggleVersion(),
      'deployment.environment.name': 'staging',
      'k8s.namespace.name': 'waggle',
    });
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'service.version=2099.1.0-rc1';
    process.env.OTEL_SERVICE_NAME = 'edge';
    expect(waggleResource('gateway').attributes).toMatchObject({ 'service.name': 'edge', 'service.version': '2099.1.0-rc1' });
  });
});
