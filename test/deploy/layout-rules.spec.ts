import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The service template's layout rules (docs/contributing/service-template.md) are checks of
 * `npm run lint`: each one is run here against a deliberate violation, and a compliant layout
 * passes them all. Both tools run as their own process, as `npm run lint` runs them (ESLint's
 * flat config and dependency-cruiser are ES modules, which jest's module sandbox cannot load).
 */
const root = join(__dirname, '../..');

function run(args: string[], options: { cwd: string; input?: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      // Exit code 1 (ESLint) or the number of violations (dependency-cruiser) means "problems found";
      // a crash or a config error prints nothing on stdout, and fails the test.
      if (error && !stdout) return reject(new Error(`${args.join(' ')} failed: ${stderr}`));
      resolve(stdout);
    });
    child.stdin?.end(options.input ?? '');
  });
}

/** ESLint with the workspace's config over each snippet, placed at its (virtual) path: the messages of `rules`. */
const LINT_TEXTS = `
import { ESLint } from 'eslint';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const eslint = new ESLint({ cwd: process.cwd() });
const results = [];
for (const { path, code } of JSON.parse(input)) results.push((await eslint.lintText(code, { filePath: path }))[0]?.messages ?? []);
process.stdout.write(JSON.stringify(results));
`;
async function lint(cases: Array<{ path: string; code: string }>, rules: string[]): Promise<string[][]> {
  const output = await run(['--input-type=module', '-e', LINT_TEXTS], { cwd: root, input: JSON.stringify(cases) });
  const results = JSON.parse(output) as Array<Array<{ ruleId: string | null; message: string }>>;
  return results.map((messages) => messages.filter((message) => rules.includes(message.ruleId ?? '')).map((message) => message.message));
}

interface Violation {
  rule: string;
  from: string;
  to: string;
}
/** dependency-cruiser with the workspace's config over a tree of files written to a temporary folder. */
async function cruise(files: Record<string, string>): Promise<Violation[]> {
  const tree = await mkdtemp(join(tmpdir(), 'waggle-layout-'));
  try {
    for (const [path, code] of Object.entries(files)) {
      await mkdir(join(tree, dirname(path)), { recursive: true });
      await writeFile(join(tree, path), code);
    }
    const roots = [...new Set(Object.keys(files).map((path) => path.split('/')[0] ?? path))];
    const bin = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
    const output = await run([bin, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', ...roots], { cwd: tree });
    const { summary } = JSON.parse(output) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    return summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }));
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

const agentEntity = 'export class AgentEntity {\n  id!: string;\n}\n';
/** A service laid out as the template says: every import of an entity or a repository is allowed. */
const compliantTree = {
  'apps/agent/src/agents/entities/agent.entity.ts': agentEntity,
  'apps/agent/src/agents/agents.repository.ts':
    "import { AgentEntity } from './entities/agent.entity';\nexport class AgentsRepository {\n  make(): AgentEntity {\n    return new AgentEntity();\n  }\n}\n",
  'apps/agent/src/agents/agents.service.ts':
    "import type { AgentEntity } from './entities/agent.entity';\nimport { AgentsRepository } from './agents.repository';\nexport class AgentsService {\n  constructor(readonly agents: AgentsRepository) {}\n  view(agent: AgentEntity): string {\n    return agent.id;\n  }\n}\n",
  'apps/agent/src/agents/agents.service.spec.ts':
    "import { AgentEntity } from './entities/agent.entity';\nexport const probe = new AgentEntity();\n",
  'apps/agent/src/runs/runs.service.ts': "import { AgentsService } from '../agents/agents.service';\nexport const probe = AgentsService;\n",
  'apps/agent/src/database/data-source.ts':
    "import { AgentEntity } from '../agents/entities/agent.entity';\nexport const ENTITIES = [AgentEntity];\n",
  'apps/agent/test/agents.int-spec.ts':
    "import { AgentEntity } from '../src/agents/entities/agent.entity';\nimport { AgentsRepository } from '../src/agents/agents.repository';\nexport const probe = [AgentEntity, AgentsRepository];\n",
  // A feature with sub-folders: its entities are the whole feature's.
  'apps/invocation/src/workflows/deployments/entities/workflow-version.entity.ts': 'export class WorkflowVersionEntity {}\n',
  'apps/invocation/src/workflows/runs/workflow-runs.service.ts':
    "import type { WorkflowVersionEntity } from '../deployments/entities/workflow-version.entity';\nexport type Pinned = WorkflowVersionEntity;\n",
  'test/integration/row-types.int-spec.ts':
    "import { AgentEntity } from '../../apps/agent/src/agents/entities/agent.entity';\nexport const probe = AgentEntity;\n",
};

describe('the layout rules of npm run lint', () => {
  jest.setTimeout(120_000);

  describe('dependency-cruiser: who imports an entity or a repository', () => {
    it('passes a service laid out as the template says', async () => {
      expect(await cruise(compliantTree)).toEqual([]);
    });

    it("refuses another feature's entity, a type-only import included", async () => {
      expect(
        await cruise({
          'apps/agent/src/agents/entities/agent.entity.ts': agentEntity,
          'apps/agent/src/runs/runs.service.ts':
            "import type { AgentEntity } from '../agents/entities/agent.entity';\nexport type Probe = AgentEntity;\n",
          'apps/agent/src/threads/threads.service.ts':
            "import { AgentEntity } from '../agents/entities/agent.entity';\nexport const probe = AgentEntity;\n",
        }),
      ).toEqual([
        {
          rule: 'entity-of-another-feature',
          from: 'apps/agent/src/runs/runs.service.ts',
          to: 'apps/agent/src/agents/entities/agent.entity.ts',
        },
        {
          rule: 'entity-of-another-feature',
          from: 'apps/agent/src/threads/threads.service.ts',
          to: 'apps/agent/src/agents/entities/agent.entity.ts',
        },
      ]);
    });

    it("refuses another feature's entity imported by an entity (a relation across features)", async () => {
      expect(
        await cruise({
          'apps/catalog/src/plans/entities/plan.entity.ts': 'export class PlanEntity {}\n',
          'apps/catalog/src/workspaces/entities/workspace.entity.ts':
            "import { PlanEntity } from '../../plans/entities/plan.entity';\nexport class WorkspaceEntity {\n  plan?: PlanEntity;\n}\n",
        }),
      ).toEqual([
        {
          rule: 'entity-of-another-feature',
          from: 'apps/catalog/src/workspaces/entities/workspace.entity.ts',
          to: 'apps/catalog/src/plans/entities/plan.entity.ts',
        },
      ]);
    });

    it("refuses another service's entity in a data source", async () => {
      expect(
        await cruise({
          'apps/asset/src/assets/entities/asset.entity.ts': 'export class AssetEntity {}\n',
          'apps/agent/src/database/data-source.ts':
            "import { AssetEntity } from '../../../asset/src/assets/entities/asset.entity';\nexport const ENTITIES = [AssetEntity];\n",
        }),
      ).toEqual([
        {
          rule: 'entity-of-another-service',
          from: 'apps/agent/src/database/data-source.ts',
          to: 'apps/asset/src/assets/entities/asset.entity.ts',
        },
      ]);
    });

    it("refuses an entity imported outside the service's features", async () => {
      expect(
        await cruise({
          'apps/agent/src/agents/entities/agent.entity.ts': agentEntity,
          'apps/agent/src/bootstrap.ts':
            "import { AgentEntity } from './agents/entities/agent.entity';\nexport const probe = AgentEntity;\n",
          'libs/platform/src/probe.ts':
            "import type { AgentEntity } from '../../../apps/agent/src/agents/entities/agent.entity';\nexport type Probe = AgentEntity;\n",
        }),
      ).toEqual([
        { rule: 'entity-outside-a-feature', from: 'apps/agent/src/bootstrap.ts', to: 'apps/agent/src/agents/entities/agent.entity.ts' },
        { rule: 'entity-outside-a-feature', from: 'libs/platform/src/probe.ts', to: 'apps/agent/src/agents/entities/agent.entity.ts' },
      ]);
    });

    it('refuses a repository of another service, or in a library', async () => {
      const repository = 'export class AgentsRepository {}\n';
      expect(
        await cruise({
          'apps/agent/src/agents/agents.repository.ts': repository,
          'apps/asset/src/assets/assets.service.ts':
            "import { AgentsRepository } from '../../../agent/src/agents/agents.repository';\nexport const probe = AgentsRepository;\n",
          'libs/platform/src/probe.ts':
            "import { AgentsRepository } from '../../../apps/agent/src/agents/agents.repository';\nexport const probe = AgentsRepository;\n",
        }),
      ).toEqual([
        {
          rule: 'repository-of-another-service',
          from: 'apps/asset/src/assets/assets.service.ts',
          to: 'apps/agent/src/agents/agents.repository.ts',
        },
        { rule: 'repository-outside-apps', from: 'libs/platform/src/probe.ts', to: 'apps/agent/src/agents/agents.repository.ts' },
      ]);
    });
  });

  describe('ESLint: where a file lives', () => {
    const placed = (paths: string[]) =>
      lint(
        paths.map((path) => ({ path, code: 'export const probe = 1;\n' })),
        ['waggle/file-location'],
      );

    it("refuses an entity outside its feature's entities/ folder", async () => {
      const problems = await placed([
        'apps/catalog/src/plans/plan.entity.ts',
        'apps/catalog/src/plan.entity.ts',
        'apps/catalog/src/database/entities/plan.entity.ts',
        'apps/catalog/src/plans/entities/nested/plan.entity.ts',
        'libs/database/src/plan.entity.ts',
      ]);
      expect(problems).toEqual(problems.map(() => [expect.stringContaining("feature's entities/ folder")]));
    });

    it('refuses a contract that is not libs/contracts/src/<service>.patterns.ts', async () => {
      const problems = await placed(['libs/contracts/src/workflow-runs.patterns.ts', 'apps/agent/src/agents/agent.patterns.ts']);
      expect(problems).toEqual(problems.map(() => [expect.stringContaining('one per service')]));
    });

    it('refuses a repository outside a feature of a service', async () => {
      const problems = await placed([
        'apps/agent/src/agents.repository.ts',
        'apps/agent/src/database/agents.repository.ts',
        'libs/platform/src/agents.repository.ts',
      ]);
      expect(problems).toEqual(problems.map(() => [expect.stringContaining('a file of its feature')]));
    });

    it('accepts each kind of file where the template puts it', async () => {
      expect(
        await placed([
          'apps/catalog/src/plans/entities/plan.entity.ts',
          'apps/invocation/src/workflows/runs/entities/workflow-run.entity.ts',
          'libs/contracts/src/invocation.patterns.ts',
          'libs/contracts/src/health.patterns.ts',
          'apps/agent/src/agents/agents.repository.ts',
          'apps/invocation/src/workflows/runs/workflow-runs.repository.ts',
        ]),
      ).toEqual([[], [], [], [], [], []]);
    });
  });

  describe("ESLint: a call's time-out is its contract's", () => {
    const withOwnTimeout =
      "import { CatalogPatterns, send } from '@waggle/contracts';\nexport const probe = (rpc: never) => send(rpc, CatalogPatterns.getModelRoute, { model_id: 'm' }, { timeoutMs: 5_000 });\n";
    const withContractTimeout =
      "import { CatalogPatterns, send } from '@waggle/contracts';\nexport const probe = (rpc: never) => send(rpc, CatalogPatterns.getModelRoute, { model_id: 'm' });\n";
    const timeouts = (cases: Array<{ path: string; code: string }>) => lint(cases, ['no-restricted-syntax']);

    it('refuses a time-out of its own passed to send() by a service or a library', async () => {
      const problems = await timeouts([
        { path: 'apps/agent/src/agents/agent-models.ts', code: withOwnTimeout },
        { path: 'libs/providers/src/model-routes.ts', code: withOwnTimeout },
      ]);
      expect(problems).toEqual(problems.map(() => [expect.stringContaining('declared once, with its pattern')]));
    });

    it("accepts the contract's, and the gateway's operator settings", async () => {
      expect(
        await timeouts([
          { path: 'apps/agent/src/agents/agent-models.ts', code: withContractTimeout },
          { path: 'apps/gateway/src/assets/assets.controller.ts', code: withOwnTimeout },
          { path: 'libs/testing/src/service-under-test.ts', code: withOwnTimeout },
        ]),
      ).toEqual([[], [], []]);
    });
  });

  describe("ESLint: TypeORM's data-access surface stays in repositories", () => {
    const dataAccess = (cases: Array<{ path: string; code: string }>) => lint(cases, ['no-restricted-imports', 'no-restricted-syntax']);
    const entityManager = "import type { EntityManager } from 'typeorm';\nexport type Probe = EntityManager;\n";
    const dataSource = "import { DataSource } from 'typeorm';\nexport const probe = DataSource;\n";
    const repository = "import { Repository } from 'typeorm';\nexport const probe = Repository;\n";
    const injected =
      "import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';\nexport const probe = [InjectDataSource, InjectRepository];\n";
    const queryBuilder = 'export const probe = (manager: Record<string, () => unknown>) => manager.createQueryBuilder();\n';

    it('refuses EntityManager (a type import too), DataSource, Repository and the injection decorators in a service', async () => {
      const service = 'apps/agent/src/agents/agents.service.ts';
      const problems = await dataAccess([entityManager, dataSource, repository, injected].map((code) => ({ path: service, code })));
      expect(problems.map((messages) => messages.length)).toEqual([1, 1, 1, 2]);
      expect(problems.flat().every((message) => message.includes('repository.ts'))).toBe(true);
    });

    it('refuses createQueryBuilder anywhere but in tests, a repository included', async () => {
      const problems = await dataAccess([
        { path: 'apps/agent/src/agents/agents.repository.ts', code: queryBuilder },
        { path: 'apps/gateway/src/probe/probe.ts', code: queryBuilder },
        { path: 'libs/database/src/probe.ts', code: queryBuilder },
      ]);
      expect(problems).toEqual(problems.map(() => [expect.stringContaining('createQueryBuilder is not used')]));
    });

    it('accepts them in repositories, database code and tests', async () => {
      const cases = [
        { path: 'apps/agent/src/agents/agents.repository.ts', code: entityManager },
        { path: 'apps/agent/src/agents/agents.repository.ts', code: injected },
        { path: 'apps/agent/src/database/data-source.ts', code: dataSource },
        { path: 'libs/database/src/probe.ts', code: repository },
        { path: 'libs/testing/src/probe.ts', code: dataSource },
        { path: 'apps/agent/src/agents/agents.service.spec.ts', code: entityManager + queryBuilder },
        { path: 'apps/agent/test/agents.int-spec.ts', code: dataSource },
        { path: 'test/integration/probe.int-spec.ts', code: queryBuilder },
      ];
      expect(await dataAccess(cases)).toEqual(cases.map(() => []));
    });
  });
});
