import { shortPathCandidates } from './short-path';

describe('shortPathCandidates', () => {
  it('finds every run-starting POST route from the controllers, and nothing else', () => {
    expect(shortPathCandidates().sort()).toEqual([
      '/openai/v1/chat/completions',
      '/openai/v1/responses',
      '/v1/agent/invoke',
      '/v1/invoke',
      '/v1/prompt/invoke',
      '/v1/workflow/invoke',
    ]);
  });
});
