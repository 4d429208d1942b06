import {
  BUDGET_PERIODS,
  BUDGET_SCOPES,
  GovernanceAdminPatterns,
  RATE_LIMIT_SCOPES,
  SPEND_GROUPS,
  type BudgetView,
  type BudgetWritten,
  type CreditsView,
  type RateLimitView,
} from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { print } from './output';

function wholeNumber(value: string): number {
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return Number(value);
}

/** `--thresholds 50,80,100`. */
function thresholdList(value: string): number[] {
  return value.split(',').map((part) => wholeNumber(part.trim()));
}

/** A rate flag: a number, or `none` to unset it (kept as the word: commander turns a parser's null into ''). */
function rateOrNone(value: string): number | 'none' {
  return value === 'none' ? value : wholeNumber(value);
}

const rateOf = (value: number | 'none' | undefined) => (value === 'none' ? null : value);

function budgetRow(budget: BudgetView | BudgetWritten): Record<string, unknown> {
  return {
    id: budget.id,
    scope: budget.scope,
    scope_id: budget.scope_id,
    period: budget.period,
    limit_micros: budget.limit_micros,
    spent_micros: budget.spent_micros,
    thresholds: budget.thresholds.join(','),
    alert_url: budget.alert_url,
    ...('webhook_secret' in budget && budget.webhook_secret ? { webhook_secret: budget.webhook_secret } : {}),
  };
}

const rateLimitRow = (limit: RateLimitView) => ({
  id: limit.id,
  scope: limit.scope,
  scope_id: limit.scope_id,
  requests_per_minute: limit.requests_per_minute,
  tokens_per_minute: limit.tokens_per_minute,
});

function printCredits(credits: CreditsView, json: boolean): void {
  if (json) return print(credits, true);
  process.stdout.write(
    `balance ${credits.balance_micros} micro-USD (${credits.applies ? 'applied by the plan' : 'not applied by the plan'})\n`,
  );
  print(
    credits.entries,
    false,
    credits.entries.map((entry) => ({ ...entry })),
  );
}

/**
 * Usage governance for the operator (the spec's decisions on usage governance): `budget`,
 * `rate-limit`, `budget-alerts`, `spend` (as /v1/private/* manages and reads them) and `credits`,
 * whose top-ups only the operator makes.
 */
export function addGovernanceCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');

  const budget = program.command('budget').description("a workspace's spend caps per workspace, API key or end user, per UTC day or month");
  budget
    .command('list <workspace-id>')
    .description("a workspace's budgets with their spend this period")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const budgets = await call(GovernanceAdminPatterns.listBudgets, { workspace_id: workspaceId });
      print(budgets, Boolean(options.json), budgets.map(budgetRow));
    });
  budget
    .command('show <workspace-id> <budget-id>')
    .description('one budget with its spend this period')
    .addOption(json())
    .action(async (workspaceId: string, budgetId: string, options: { json?: boolean }) => {
      const view = await call(GovernanceAdminPatterns.getBudget, { workspace_id: workspaceId, budget_id: budgetId });
      print(view, Boolean(options.json), [budgetRow(view)]);
    });
  budget
    .command('create <workspace-id>')
    .description('a new budget; with --alert-url its webhook secret is printed, this once')
    .addOption(new Option('--scope <scope>', 'whose spend').choices(BUDGET_SCOPES).makeOptionMandatory())
    .option('--scope-id <id>', "the API key's id or the user label (not for workspace)")
    .addOption(new Option('--period <period>', 'UTC day or month').choices(BUDGET_PERIODS).makeOptionMandatory())
    .requiredOption('--limit-micros <n>', 'the cap in micro-USD', wholeNumber)
    .option('--thresholds <percents>', 'alert thresholds, comma-separated percents (default 80,100)', thresholdList)
    .option('--alert-url <url>', 'where signed alerts are sent')
    .addOption(json())
    .action(
      async (
        workspaceId: string,
        options: {
          scope: (typeof BUDGET_SCOPES)[number];
          scopeId?: string;
          period: (typeof BUDGET_PERIODS)[number];
          limitMicros: number;
          thresholds?: number[];
          alertUrl?: string;
          json?: boolean;
        },
      ) => {
        const created = await call(GovernanceAdminPatterns.createBudget, {
          workspace_id: workspaceId,
          budget: {
            scope: options.scope,
            scope_id: options.scopeId,
            period: options.period,
            limit_micros: options.limitMicros,
            thresholds: options.thresholds,
            alert_url: options.alertUrl,
          },
        });
        print(created, Boolean(options.json), [budgetRow(created)]);
      },
    );
  budget
    .command('update <workspace-id> <budget-id>')
    .description("change a budget's limit, thresholds or alert URL (--alert-url none removes it)")
    .option('--limit-micros <n>', 'the cap in micro-USD', wholeNumber)
    .option('--thresholds <percents>', 'alert thresholds, comma-separated percents', thresholdList)
    .option('--alert-url <url>', 'where signed alerts are sent, or "none"')
    .addOption(json())
    .action(
      async (
        workspaceId: string,
        budgetId: string,
        options: { limitMicros?: number; thresholds?: number[]; alertUrl?: string; json?: boolean },
      ) => {
        const updated = await call(GovernanceAdminPatterns.updateBudget, {
          workspace_id: workspaceId,
          budget_id: budgetId,
          budget: {
            limit_micros: options.limitMicros,
            thresholds: options.thresholds,
            alert_url: options.alertUrl === 'none' ? null : options.alertUrl,
          },
        });
        print(updated, Boolean(options.json), [budgetRow(updated)]);
      },
    );
  budget
    .command('delete <workspace-id> <budget-id>')
    .description('remove a budget (asks first)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, budgetId: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete budget ${budgetId}`, options.yes);
      const deleted = await call(GovernanceAdminPatterns.deleteBudget, { workspace_id: workspaceId, budget_id: budgetId });
      print(deleted, Boolean(options.json), [{ deleted: deleted.id }]);
    });

  program
    .command('budget-alerts <workspace-id>')
    .description("the thresholds a workspace's budgets crossed, newest first")
    .option('--budget <budget-id>', "only this budget's")
    .option('--limit <n>', 'at most this many', wholeNumber)
    .addOption(json())
    .action(async (workspaceId: string, options: { budget?: string; limit?: number; json?: boolean }) => {
      const alerts = await call(GovernanceAdminPatterns.listBudgetAlerts, {
        workspace_id: workspaceId,
        budget_id: options.budget,
        limit: options.limit,
      });
      print(
        alerts,
        Boolean(options.json),
        alerts.map((alert) => ({
          at: alert.at,
          budget_id: alert.budget_id,
          event: alert.event,
          threshold: alert.threshold,
          spent_micros: alert.spent_micros,
          limit_micros: alert.limit_micros,
          delivery_id: alert.delivery_id,
        })),
      );
    });

  const rateLimit = program.command('rate-limit').description('requests and tokens per minute of API keys and end users');
  rateLimit
    .command('list <workspace-id>')
    .description("a workspace's rate limits")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const limits = await call(GovernanceAdminPatterns.listRateLimits, { workspace_id: workspaceId });
      print(limits, Boolean(options.json), limits.map(rateLimitRow));
    });
  rateLimit
    .command('show <workspace-id> <rate-limit-id>')
    .description('one rate limit')
    .addOption(json())
    .action(async (workspaceId: string, id: string, options: { json?: boolean }) => {
      const view = await call(GovernanceAdminPatterns.getRateLimit, { workspace_id: workspaceId, rate_limit_id: id });
      print(view, Boolean(options.json), [rateLimitRow(view)]);
    });
  rateLimit
    .command('create <workspace-id>')
    .description('a new rate limit (at least one of the two rates)')
    .addOption(new Option('--scope <scope>', 'whose requests').choices(RATE_LIMIT_SCOPES).makeOptionMandatory())
    .requiredOption('--scope-id <id>', "the API key's id or the user label")
    .option('--requests-per-minute <n>', 'requests per minute', wholeNumber)
    .option('--tokens-per-minute <n>', 'tokens per minute', wholeNumber)
    .addOption(json())
    .action(
      async (
        workspaceId: string,
        options: {
          scope: (typeof RATE_LIMIT_SCOPES)[number];
          scopeId: string;
          requestsPerMinute?: number;
          tokensPerMinute?: number;
          json?: boolean;
        },
      ) => {
        const created = await call(GovernanceAdminPatterns.createRateLimit, {
          workspace_id: workspaceId,
          rate_limit: {
            scope: options.scope,
            scope_id: options.scopeId,
            requests_per_minute: options.requestsPerMinute,
            tokens_per_minute: options.tokensPerMinute,
          },
        });
        print(created, Boolean(options.json), [rateLimitRow(created)]);
      },
    );
  rateLimit
    .command('update <workspace-id> <rate-limit-id>')
    .description('change a rate ("none" unsets it; one must stay set)')
    .option('--requests-per-minute <n>', 'requests per minute, or "none"', rateOrNone)
    .option('--tokens-per-minute <n>', 'tokens per minute, or "none"', rateOrNone)
    .addOption(json())
    .action(
      async (
        workspaceId: string,
        id: string,
        options: { requestsPerMinute?: number | 'none'; tokensPerMinute?: number | 'none'; json?: boolean },
      ) => {
        const updated = await call(GovernanceAdminPatterns.updateRateLimit, {
          workspace_id: workspaceId,
          rate_limit_id: id,
          rate_limit: { requests_per_minute: rateOf(options.requestsPerMinute), tokens_per_minute: rateOf(options.tokensPerMinute) },
        });
        print(updated, Boolean(options.json), [rateLimitRow(updated)]);
      },
    );
  rateLimit
    .command('delete <workspace-id> <rate-limit-id>')
    .description('remove a rate limit (asks first)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, id: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete rate limit ${id}`, options.yes);
      const deleted = await call(GovernanceAdminPatterns.deleteRateLimit, { workspace_id: workspaceId, rate_limit_id: id });
      print(deleted, Boolean(options.json), [{ deleted: deleted.id }]);
    });

  program
    .command('spend <workspace-id>')
    .description("a workspace's spend from the request ledger over UTC days (default this month)")
    .addOption(new Option('--group-by <group>', 'one row per').choices(SPEND_GROUPS).default('day'))
    .option('--from <date>', 'first UTC day, YYYY-MM-DD')
    .option('--to <date>', 'last UTC day, YYYY-MM-DD (included)')
    .addOption(json())
    .action(
      async (workspaceId: string, options: { groupBy: (typeof SPEND_GROUPS)[number]; from?: string; to?: string; json?: boolean }) => {
        const spend = await call(GovernanceAdminPatterns.spend, {
          workspace_id: workspaceId,
          group_by: options.groupBy,
          from: options.from,
          to: options.to,
        });
        if (options.json) return print(spend, true);
        process.stdout.write(`${spend.from} to ${spend.to}: ${spend.total_cost_micros} micro-USD over ${spend.total_runs} runs\n`);
        print(
          spend.groups,
          false,
          spend.groups.map((group) => ({ [spend.group_by]: group.key, cost_micros: group.cost_micros, runs: group.runs })),
        );
      },
    );

  const credits = program
    .command('credits')
    .description("a workspace's hosted credits (what runs on the operator's provider keys draw on)");
  credits
    .command('show <workspace-id>')
    .description('the balance, whether the plan applies it, and the latest entries')
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      printCredits(await call(GovernanceAdminPatterns.showCredits, { workspace_id: workspaceId }), Boolean(options.json));
    });
  credits
    .command('top-up <workspace-id>')
    .description('add credits (an append-only entry)')
    .requiredOption('--micros <n>', 'micro-USD to add (1 USD = 1000000)', wholeNumber)
    .option('--note <text>', 'why, for the record')
    .addOption(json())
    .action(async (workspaceId: string, options: { micros: number; note?: string; json?: boolean }) => {
      const view = await call(GovernanceAdminPatterns.addCredits, {
        workspace_id: workspaceId,
        amount_micros: options.micros,
        kind: 'top_up',
        note: options.note,
      });
      printCredits(view, Boolean(options.json));
    });
  credits
    .command('adjust <workspace-id>')
    .description('correct the balance up or down (an append-only entry; negative takes credits away)')
    .requiredOption('--micros <n>', 'micro-USD, negative to take away', wholeNumber)
    .option('--note <text>', 'why, for the record')
    .addOption(json())
    .action(async (workspaceId: string, options: { micros: number; note?: string; json?: boolean }) => {
      const view = await call(GovernanceAdminPatterns.addCredits, {
        workspace_id: workspaceId,
        amount_micros: options.micros,
        kind: 'adjustment',
        note: options.note,
      });
      printCredits(view, Boolean(options.json));
    });
}
