import { WaggleException } from '@waggle/errors';
import { requestContext } from '@waggle/platform';
import { withRunCredentials, WorkspaceCredential, type ModelRoute } from '@waggle/providers';
import { runCredentials } from './run-credentials';

const WORKSPACE = '7d0c3f4e-41a1-4f60-9c4e-5f0f3f2f1a11';
const ROUTE: ModelRoute = { modelId: 'm', provider: 'openai', providerName: 'OpenAI', providerApi: 'openai', providerModelId: 'm' };
const lookup = async () => new WorkspaceCredential(WORKSPACE, 'openai', 'sk-own-0123456789', null, 'v1');

describe('runCredentials', () => {
  it('carries the credits-exhausted flag of the request context, so a hosted run answers 402 before any provider call', async () => {
    const refusal = await requestContext
      .run({ workspaceId: WORKSPACE, creditsExhausted: true }, () => withRunCredentials(ROUTE, runCredentials(null, WORKSPACE, lookup)))
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(WaggleException);
    expect((refusal as WaggleException).code).toBe('insufficient_hosted_llm_credits');
    expect((refusal as WaggleException).status).toBe(402);
  });

  it('lets a run on the workspace’s keys through with the flag set, and a hosted one without it', async () => {
    const own = await requestContext.run({ creditsExhausted: true }, () =>
      withRunCredentials(ROUTE, runCredentials('workspace', WORKSPACE, lookup)),
    );
    expect(own.workspaceCredential?.provider).toBe('openai');
    await expect(requestContext.run({}, () => withRunCredentials(ROUTE, runCredentials('hosted', WORKSPACE, lookup)))).resolves.toBe(ROUTE);
    // Outside any request (a worker with no context): hosted, not exhausted.
    expect(runCredentials(undefined, WORKSPACE, lookup)).toMatchObject({ source: 'hosted', creditsExhausted: false });
  });
});
