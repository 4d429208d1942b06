import { describeEnv } from '@waggle/platform';
import { PROVIDER_KEYS, providerEnvVariables } from '@waggle/providers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { InvocationEnv } from '../config/invocation.env';

describe('provider configuration of the invocation service', () => {
  it('declares, with a description, every variable the provider layer takes', () => {
    const declared = new Map(describeEnv(InvocationEnv).map((variable) => [variable.name, variable]));
    for (const name of providerEnvVariables()) {
      expect({ name, description: declared.get(name)?.description ?? '' }).toEqual({ name, description: expect.stringMatching(/\S/) });
      if (name.endsWith('_API_KEY')) expect(declared.get(name)?.secret).toBe(true);
    }
  });

  it('knows every serving provider the shipped model catalog names (but `local`, which needs no credentials)', () => {
    const catalog = parse(readFileSync(join(__dirname, '../../../catalog/src/models/data/models.yaml'), 'utf8')) as {
      providers: Record<string, { api: string }>;
    };
    const remote = Object.entries(catalog.providers).filter(([, provider]) => provider.api !== 'local');
    expect(remote.length).toBeGreaterThan(0);
    expect(PROVIDER_KEYS).toEqual(expect.arrayContaining(remote.map(([key]) => key)));
  });
});
