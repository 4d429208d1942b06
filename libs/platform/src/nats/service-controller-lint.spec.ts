import type { ESLint } from 'eslint';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';

const root = join(__dirname, '../../../..');
const eslintBin = join(dirname(require.resolve('eslint/package.json')), 'bin/eslint.js');

/**
 * The workspace's own lint config (eslint.config.mjs), on a snippet placed where a file of `app`
 * would be: ESLint's CLI in a child process, since jest's module sandbox cannot load an ES module config.
 */
function lintAs(app: string, code: string): Promise<string[]> {
  const args = [eslintBin, '--format', 'json', '--stdin', '--stdin-filename', `apps/${app}/src/probe/probe.controller.ts`];
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      // Exit code 1 means "problems found"; anything else (a crash, a config error) fails the test.
      if (error && error.code !== 1) return reject(error);
      const [result] = JSON.parse(stdout) as ESLint.LintResult[];
      resolve((result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-syntax').map((message) => message.message));
    });
    child.stdin?.end(code);
  });
}

const withInterceptor = `
import { Controller, UseInterceptors } from '@nestjs/common';
import { AgentPatterns, type AgentRecord, type WorkspaceIdRequest } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';

class AuditInterceptor {}

@Controller()
@UseInterceptors(AuditInterceptor)
export class ProbeController {
  @RpcHandler(AgentPatterns.listAgents)
  list(_request: WorkspaceIdRequest): AgentRecord[] {
    return [];
  }
}
`;

const withMessagePattern = `
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

@Controller()
export class ProbeController {
  @MessagePattern('agent.agents.list')
  list(): unknown[] {
    return [];
  }
}
`;

const clean = `
import { Controller } from '@nestjs/common';
import { AgentPatterns, type AgentRecord, type WorkspaceIdRequest } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';

@Controller()
export class ProbeController {
  @RpcHandler(AgentPatterns.listAgents)
  list(_request: WorkspaceIdRequest): AgentRecord[] {
    return [];
  }
}
`;

/**
 * Services answer only through `@RpcHandler` (GracefulNatsServer.serve), which runs no Nest
 * enhancer: the lint refuses one on a service controller, where it would silently never run.
 */
describe('the lint rule against Nest enhancers on service controllers', () => {
  jest.setTimeout(60_000);

  it('refuses @UseInterceptors on a service controller', async () => {
    const problems = await lintAs('agent', withInterceptor);
    expect(problems).toHaveLength(2);
    expect(problems.every((message) => message.includes('@RpcHandler'))).toBe(true);
  });

  it('refuses @MessagePattern on a service controller', async () => {
    expect(await lintAs('invocation', withMessagePattern)).toHaveLength(2);
  });

  it('accepts a controller that only uses @RpcHandler', async () => {
    expect(await lintAs('agent', clean)).toEqual([]);
  });

  it('leaves the gateway, an HTTP app, its enhancers', async () => {
    expect(await lintAs('gateway', withInterceptor)).toEqual([]);
  });
});
