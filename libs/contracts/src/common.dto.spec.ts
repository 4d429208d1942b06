import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { PromptVersionsRequest } from './invocation.patterns';
import { WorkflowVersionsRequest } from './workflow-deployments.patterns';

const WORKSPACE = '0b6d3c0e-6a53-4d0c-9d6e-1f1f4f1c2b3a';

describe.each([PromptVersionsRequest, WorkflowVersionsRequest])('%p (a DeploymentVariantRequest)', (RequestClass) => {
  const problems = (plain: object) =>
    validateSync(plainToInstance(RequestClass, plain)).map(({ property, constraints }) => ({ property, constraints }));

  it('takes a workspace, a deployment and a variant', () => {
    expect(problems({ workspace_id: WORKSPACE, deployment: 'support', variant: 'main' })).toEqual([]);
  });

  it('refuses a bad workspace and out-of-bounds names with the same messages, in field order', () => {
    expect(problems({ workspace_id: 'nope', deployment: '', variant: 'x'.repeat(201) })).toEqual([
      { property: 'workspace_id', constraints: { isUuid: 'workspace_id must be a UUID' } },
      { property: 'deployment', constraints: { isLength: 'deployment must be longer than or equal to 1 characters' } },
      { property: 'variant', constraints: { isLength: 'variant must be shorter than or equal to 200 characters' } },
    ]);
  });
});
