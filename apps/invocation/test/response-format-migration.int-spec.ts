import type { PromptVariantSpec } from '@waggle/contracts';
import { contentHashOf } from '@waggle/platform';
import { parseWorkflowDefinitions } from '@waggle/workflows';
import { randomUUID } from 'node:crypto';
import { useMigrationClient } from '@waggle/testing';
import { AddPromptFallbacksResponseFormat1795600100000 } from '../src/database/migrations/1795600100000-add-prompt-fallbacks-response-format';
import { definitionOf } from '../src/prompts/prompts.service';

const FORMAT = { type: 'json_schema', name: 'reply', schema: { type: 'object', properties: { answer: { type: 'string' } } } };
const MESSAGES = [{ role: 'user', content: '{{ question }}' }];

/** A workflow variant as the old schema stored it: response_format in a prompt step's params, inside a loop. */
const OLD_WORKFLOW = {
  name: 'default',
  inputs: { question: { type: 'text', required: true } },
  output: '{{ pages.output }}',
  steps: [
    {
      id: 'pages',
      type: 'loop',
      over: '[1, 2]',
      max_iterations: 2,
      concurrency: 1,
      on_error: 'fail',
      steps: [
        {
          id: 'ask',
          type: 'prompt',
          model: 'gpt-6-luna',
          messages: [{ role: 'user', content: 'Page {{ item }}' }],
          params: { temperature: 0.1, response_format: FORMAT },
          on_error: 'fail',
        },
        { id: 'only', type: 'prompt', model: 'gpt-6-luna', messages: MESSAGES, params: { response_format: FORMAT }, on_error: 'fail' },
      ],
    },
  ],
};

/** The same variant written the new way, as a file re-applied after the move would say it. */
const NEW_WORKFLOW = {
  ...OLD_WORKFLOW,
  steps: [
    {
      ...OLD_WORKFLOW.steps[0],
      steps: [
        { ...OLD_WORKFLOW.steps[0].steps[0], params: { temperature: 0.1 }, response_format: FORMAT },
        { id: 'only', type: 'prompt', model: 'gpt-6-luna', messages: MESSAGES, response_format: FORMAT, on_error: 'fail' },
      ],
    },
  ],
};

/**
 * The migration that moves `response_format` out of `params` (D42), run against rows of the
 * old shape: inside one transaction the two new columns are dropped again (the schema before
 * the migration), old rows are written, `up` and `down` run, and everything is rolled back.
 */
describe('migration AddPromptFallbacksResponseFormat1795600100000', () => {
  const migration = new AddPromptFallbacksResponseFormat1795600100000();
  const db = useMigrationClient();
  const { runner } = db;

  async function oldRows(): Promise<{ promptVersion: string; plainVersion: string; workflowVersion: string }> {
    await db.client.query('ALTER TABLE invocation.prompt_versions DROP COLUMN fallbacks, DROP COLUMN response_format');
    const secret = 'sealed';
    const [promptDeployment] = (
      await db.client.query<{ id: string }>(
        'INSERT INTO invocation.prompt_deployments (workspace_id, name, webhook_secret_sealed) VALUES ($1, $2, $3) RETURNING id',
        [randomUUID(), 'moved', secret],
      )
    ).rows;
    const [variant] = (
      await db.client.query<{ id: string }>('INSERT INTO invocation.prompt_variants (deployment_id, name) VALUES ($1, $2) RETURNING id', [
        promptDeployment.id,
        'default',
      ])
    ).rows;
    const insertVersion = async (version: number, params: Record<string, unknown>) =>
      (
        await db.client.query<{ id: string }>(
          `INSERT INTO invocation.prompt_versions (variant_id, version, model, messages, params, variables, image_inputs, content_hash)
           VALUES ($1, $2, 'gpt-6-luna', $3, $4, '["question"]', '[]', 'old') RETURNING id`,
          [variant.id, version, JSON.stringify(MESSAGES), JSON.stringify(params)],
        )
      ).rows[0].id;
    const promptVersion = await insertVersion(1, { temperature: 0.2, response_format: FORMAT });
    const plainVersion = await insertVersion(2, { temperature: 0.2 });
    const [workflowDeployment] = (
      await db.client.query<{ id: string }>(
        'INSERT INTO invocation.workflow_deployments (workspace_id, name, webhook_secret_sealed) VALUES ($1, $2, $3) RETURNING id',
        [randomUUID(), 'moved', secret],
      )
    ).rows;
    const [workflowVariant] = (
      await db.client.query<{ id: string }>('INSERT INTO invocation.workflow_variants (deployment_id, name) VALUES ($1, $2) RETURNING id', [
        workflowDeployment.id,
        'default',
      ])
    ).rows;
    const [workflowVersion] = (
      await db.client.query<{ id: string }>(
        `INSERT INTO invocation.workflow_versions (variant_id, version, definition, content_hash) VALUES ($1, 1, $2, 'old') RETURNING id`,
        [workflowVariant.id, JSON.stringify(OLD_WORKFLOW)],
      )
    ).rows;
    return { promptVersion, plainVersion, workflowVersion: workflowVersion.id };
  }

  const promptRow = async (id: string) =>
    (await db.client.query('SELECT params, fallbacks, response_format, content_hash FROM invocation.prompt_versions WHERE id = $1', [id]))
      .rows[0] as Record<string, unknown>;
  const workflowRow = async (id: string) =>
    (await db.client.query('SELECT definition, content_hash FROM invocation.workflow_versions WHERE id = $1', [id])).rows[0] as Record<
      string,
      unknown
    >;

  it('moves response_format beside the model, with the hash apply gives the moved definition, and back down', async () => {
    await db.client.query('BEGIN');
    try {
      const ids = await oldRows();
      await migration.up(runner);

      const moved = definitionOf({
        name: 'default',
        model: 'gpt-6-luna',
        messages: MESSAGES,
        params: { temperature: 0.2 },
        response_format: FORMAT,
      } as PromptVariantSpec);
      expect(await promptRow(ids.promptVersion)).toEqual({
        params: { temperature: 0.2 },
        fallbacks: [],
        response_format: FORMAT,
        content_hash: contentHashOf(moved, 'locale'),
      });
      // A version without one is left as it was.
      expect(await promptRow(ids.plainVersion)).toEqual({
        params: { temperature: 0.2 },
        fallbacks: [],
        response_format: null,
        content_hash: 'old',
      });

      const parsed = parseWorkflowDefinitions({ workflows: [{ deployment: 'moved', variants: [NEW_WORKFLOW] }] });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      const [reapplied] = parsed.workflows[0].variants;
      expect(await workflowRow(ids.workflowVersion)).toEqual({
        definition: NEW_WORKFLOW,
        content_hash: contentHashOf(reapplied, 'code-unit'),
      });

      await migration.down(runner);
      expect((await workflowRow(ids.workflowVersion)).definition).toEqual(OLD_WORKFLOW);
      const columns = await db.client.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'invocation' AND table_name = 'prompt_versions' AND column_name IN ('fallbacks', 'response_format')",
      );
      expect(columns.rowCount).toBe(0);
      const [restored] = (await db.client.query('SELECT params FROM invocation.prompt_versions WHERE id = $1', [ids.promptVersion])).rows;
      expect(restored).toEqual({ params: { temperature: 0.2, response_format: FORMAT } });
    } finally {
      await db.client.query('ROLLBACK');
    }
  });
});
