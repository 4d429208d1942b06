import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from './render-env-example';

describe('.env.example', () => {
  const root = join(__dirname, '../../..');

  it("is exactly what the apps' env classes generate", () => {
    expect(readFileSync(join(root, '.env.example'), 'utf8')).toBe(renderEnvExample(join(root, 'apps')));
  });

  it('lists every variable with the apps that read it', () => {
    const rendered = renderEnvExample(join(root, 'apps'));
    expect(rendered).toContain('# DATABASE_URL=postgres://postgres@127.0.0.1:5432/waggle');
    expect(rendered).toMatch(/# Read by: gateway\n# NATS_REQUEST_TIMEOUT_MS=10000/);
    expect(rendered).toMatch(/# Defaults: gateway=3000, invocation=3101/);
  });
});
