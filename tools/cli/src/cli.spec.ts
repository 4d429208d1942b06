import { WaggleException } from '@waggle/errors';
import { ConfigError } from '@waggle/platform';
import { CommanderError, type Command } from 'commander';
import { buildCli, type Caller, type Collector } from './cli';
import { CliFailure, EXIT, exitCodeOf } from './exit-codes';

const unused: Caller & Collector = () => Promise.reject(new Error('no service in this test'));

function leaves(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  const here = [...path, command.name()];
  return command.commands.flatMap((sub) => [{ path: [...here, sub.name()].join(' '), command: sub }, ...leaves(sub, here)]);
}

describe('the operator CLI', () => {
  const program = buildCli(unused, unused, 'models.yaml', '9.9.9');

  it('describes every command in --help', () => {
    const undescribed = leaves(program)
      .filter(({ command }) => command.description().trim() === '')
      .map(({ path }) => path);
    expect(undescribed).toEqual([]);
  });

  it('offers --yes on every command that cannot be undone', () => {
    const withYes = leaves(program)
      .filter(({ command }) => command.options.some((option) => option.long === '--yes'))
      .map(({ path }) => path)
      .sort();
    expect(withYes).toEqual([
      'waggle agent webhook-secret rotate',
      'waggle budget delete',
      'waggle dataset delete',
      'waggle key revoke',
      'waggle mcp-server delete',
      'waggle provider-credential delete',
      'waggle rate-limit delete',
      'waggle webhook-secret rotate',
      'waggle workflow webhook-secret rotate',
      'waggle workspace delete',
    ]);
  });
});

describe('exit codes', () => {
  it('tell usage, unavailable, configuration and refused apart', () => {
    expect(exitCodeOf(new CommanderError(1, 'commander.unknownCommand', 'unknown command'))).toBe(EXIT.usage);
    expect(exitCodeOf(new CommanderError(1, 'commander.missingArgument', 'missing'))).toBe(EXIT.usage);
    expect(exitCodeOf(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(EXIT.ok);
    expect(exitCodeOf(new CommanderError(0, 'commander.version', '1.0.0'))).toBe(EXIT.ok);
    expect(exitCodeOf(new CommanderError(1, 'waggle.workflows.refused', 'refused'))).toBe(EXIT.refused);
    expect(exitCodeOf(new ConfigError(['NATS_URL: bad']))).toBe(EXIT.config);
    expect(exitCodeOf(new WaggleException('upstream_request_failed', { details: { pattern: 'x' } }))).toBe(EXIT.unavailable);
    expect(exitCodeOf(new WaggleException('upstream_request_failed', { status: 504 }))).toBe(EXIT.unavailable);
    expect(exitCodeOf(new WaggleException('not_found'))).toBe(EXIT.refused);
    expect(exitCodeOf(new WaggleException('validation_error'))).toBe(EXIT.refused);
    expect(exitCodeOf(new CliFailure(EXIT.usage, 'refusing'))).toBe(EXIT.usage);
    expect([EXIT.ok, EXIT.refused, EXIT.usage, EXIT.unavailable, EXIT.config]).toEqual([0, 1, 64, 69, 78]);
  });
});
