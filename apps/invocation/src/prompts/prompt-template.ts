import { WaggleException } from '@waggle/errors';
import { Liquid } from 'liquidjs';

/**
 * Prompt templates are LiquidJS. Strict filters catch typos at apply time; variables
 * missing at run time render empty (a webhook may send null or "" on purpose).
 */
const liquid = new Liquid({ strictFilters: true, strictVariables: false, cache: 500 });

/** The top-level input variables the templates use, in first-use order. */
export function declaredVariables(templates: string[]): string[] {
  const names = new Set<string>();
  for (const [index, template] of templates.entries()) {
    try {
      for (const name of liquid.globalVariablesSync(liquid.parse(template))) names.add(name);
    } catch (error) {
      throw new WaggleException('validation_error', {
        message: 'A prompt message is not a valid template',
        details: [{ field: `messages[${index}].content`, messages: [error instanceof Error ? error.message : String(error)] }],
      });
    }
  }
  return [...names];
}

export function renderTemplate(template: string, inputs: Record<string, unknown>): string {
  return liquid.parseAndRenderSync(template, inputs);
}
