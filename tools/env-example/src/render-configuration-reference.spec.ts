import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationReference } from './render-configuration-reference';

describe('docs/reference/configuration.md', () => {
  const root = join(__dirname, '../../..');
  const rendered = renderConfigurationReference(join(root, 'apps'));
  const section = (app: string) => rendered.split(`\n## ${app}\n`)[1].split('\n## ')[0];

  it("is exactly what the apps' env classes generate (npm run env:example rewrites it)", () => {
    expect(readFileSync(join(root, 'docs/reference/configuration.md'), 'utf8')).toBe(rendered);
  });

  it('lists each app with the variables it reads: type, default, secret, description', () => {
    expect(section('gateway')).toContain(
      '| `NATS_REQUEST_TIMEOUT_MS` | integer (100 to 900000) | `10000` | no | How long the gateway waits for a service to answer a request over NATS (ms) |',
    );
    expect(section('gateway')).toMatch(/\| `PORT` \| integer \(0 to 65535\) \| `3000` \|/);
    expect(section('catalog')).toMatch(/\| `PORT` \| integer \(0 to 65535\) \| `3105` \|/);
    expect(section('gateway')).not.toContain('`DATABASE_URL`');
    expect(section('catalog')).toMatch(/\| `DATABASE_URL` \| [^|]+ \| `postgres:\/\/postgres@127\.0\.0\.1:5432\/waggle` \| yes \|/);
    expect(section('invocation')).toMatch(/\| `OPENAI_API_KEY` \| string \| unset \| yes \|/);
    expect(section('invocation')).toMatch(/\| `NATS_USER` \| string \| unset \| no \|/);
  });

  it('names the values an enumerated variable takes', () => {
    expect(section('agent')).toContain('| `NODE_ENV` | one of `development`, `production`, `test` | `development` | no |');
  });
});
