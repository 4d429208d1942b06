import { Command } from 'commander';
import { addLimitOptions, limitsFromOptions, parseLimit } from './limit-options';

describe('limit flags', () => {
  it('parses integers and "unlimited", and refuses anything else', () => {
    expect(parseLimit('0')).toBe(0);
    expect(parseLimit('5000')).toBe(5000);
    expect(parseLimit('unlimited')).toBe('unlimited');
    for (const bad of ['-1', '1.5', 'ten', '', '9007199254740993']) expect(() => parseLimit(bad)).toThrow();
  });

  it('turns the given flags, and only those, into a limits patch', () => {
    const command = addLimitOptions(new Command('x').exitOverride());
    command.parse(['--rate-limit-per-day', '10', '--provider-tool-calls-per-day', 'unlimited'], { from: 'user' });
    expect(limitsFromOptions(command.opts())).toEqual({ rate_limit_per_day: 10, provider_tool_calls_per_day: null });
  });
});
