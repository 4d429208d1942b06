import {
  CatalogPatterns,
  isValidPrice,
  MAX_PRICE_PER_MILLION,
  PRICE_DECIMALS,
  type ModelPriceView,
  type ModelPricing,
} from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { print } from './output';

const priceCells = (pricing: ModelPricing | null) => ({
  input: pricing?.input,
  cached_input: pricing?.cached_input,
  cache_write: pricing?.cache_write,
  output: pricing?.output,
  reasoning: pricing ? (pricing.reasoning ?? 'as output') : undefined,
  price_version: pricing?.price_version,
});

/** The effective price, then the catalog file's under it when an override is in force. */
const priceRows = (view: ModelPriceView) => [
  { model: view.model, source: view.source, ...priceCells(view.pricing) },
  ...(view.source === 'operator' ? [{ model: view.model, source: 'catalog', ...priceCells(view.catalog_pricing) }] : []),
];

function price(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !isValidPrice(parsed))
    throw new InvalidArgumentError(
      `not a price in USD per million tokens (0 to ${MAX_PRICE_PER_MILLION}, at most ${PRICE_DECIMALS} decimals): ${value}`,
    );
  return parsed;
}

/**
 * `model price show|set|reset`: a model's price in USD per million tokens (the spec's decisions
 * on usage governance). Prices are operator-wide: set here, kept apart from the catalog file (a
 * new catalog load never replaces them), and read by runners with each model's route (within
 * 10 s on every replica).
 */
export function addModelPriceCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const model = program.command('model').description('a model of the catalog');
  const prices = model.command('price').description("a model's price per million tokens: the catalog file's, or the operator's override");
  prices
    .command('show <model>')
    .description("the price runs are charged (the override when one is set) and the catalog file's")
    .addOption(json())
    .action(async (modelId: string, options: { json?: boolean }) => {
      const view = await call(CatalogPatterns.getModelPrice, { model_id: modelId });
      print(view, Boolean(options.json), priceRows(view));
    });
  prices
    .command('set <model>')
    .description('override the price of a model (USD per million tokens); runs that start from then on are charged at it')
    .requiredOption('--input <usd>', 'uncached prompt tokens', price)
    .requiredOption('--output <usd>', 'completion tokens (reasoning included unless --reasoning)', price)
    .option('--cached-input <usd>', 'prompt tokens read from the provider cache (default: the input price)', price)
    .option('--cache-write <usd>', 'prompt tokens written to the provider cache (default: the input price)', price)
    .option('--reasoning <usd>', 'reasoning tokens, where the provider bills them apart from output', price)
    .requiredOption('--price-version <version>', 'a label for this price, such as 2026-12-01 (recorded with every run charged at it)')
    .addOption(json())
    .action(
      async (
        modelId: string,
        options: {
          input: number;
          output: number;
          cachedInput?: number;
          cacheWrite?: number;
          reasoning?: number;
          priceVersion: string;
          json?: boolean;
        },
      ) => {
        const view = await call(CatalogPatterns.setModelPrice, {
          model_id: modelId,
          input: options.input,
          output: options.output,
          ...(options.cachedInput !== undefined && { cached_input: options.cachedInput }),
          ...(options.cacheWrite !== undefined && { cache_write: options.cacheWrite }),
          ...(options.reasoning !== undefined && { reasoning: options.reasoning }),
          price_version: options.priceVersion,
        });
        print(view, Boolean(options.json), priceRows(view));
      },
    );
  prices
    .command('reset <model>')
    .description("drop the override: the catalog file's price applies again")
    .addOption(json())
    .action(async (modelId: string, options: { json?: boolean }) => {
      const view = await call(CatalogPatterns.resetModelPrice, { model_id: modelId });
      print(view, Boolean(options.json), priceRows(view));
    });
}
