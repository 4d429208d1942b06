import { WaggleException } from '@waggle/errors';
import { Liquid, type Template } from 'liquidjs';
import { liquidOutputText } from '@waggle/workflows';
import { LRUCache } from 'lru-cache';

/**
 * Prompt templates are LiquidJS. Strict filters catch typos at apply time; variables
 * missing at run time render empty (a webhook may send null or "" on purpose); an object or
 * array input prints as JSON, as in workflows.
 */
const liquid = new Liquid({ strictFilters: true, strictVariables: false, outputEscape: liquidOutputText });

/**
 * Parsed templates by source text: a version's templates never change, so each is parsed
 * once, not on every run (Liquid's own cache covers template files, not strings).
 */
const parsed = new LRUCache<string, Template[]>({ max: 2_000 });

function parsedTemplate(source: string): Template[] {
  let templates = parsed.get(source);
  if (!templates) {
    templates = liquid.parse(source);
    parsed.set(source, templates);
  }
  return templates;
}

/** The top-level input variables the templates use, in first-use order. */
export function declaredVariables(templates: string[]): string[] {
  const names = new Set<string>();
  for (const [index, template] of templates.entries()) {
    try {
      for (const name of liquid.globalVariablesSync(liquid.parse(template))) names.add(name);
    } catch (error) {
      throw new WaggleException('validation_error', {
        detail: 'invalid_prompt_template',
        details: [{ field: `messages[${index}].content`, messages: [error instanceof Error ? error.message : String(error)] }],
      });
    }
  }
  return [...names];
}

/**
 * A message rendered with the run's inputs. An input a filter cannot take (`{{ question | upcase }}`
 * given an object whose `toString` is not a function) is the caller's to fix: 422 naming the inputs.
 */
export function renderTemplate(template: string, inputs: Record<string, unknown>): string {
  try {
    return liquid.renderSync(parsedTemplate(template), inputs) as string;
  } catch (error) {
    throw new WaggleException('validation_error', {
      detail: 'prompt_inputs_unrenderable',
      details: [{ field: 'inputs', messages: [error instanceof Error ? error.message : 'the template could not render these inputs'] }],
    });
  }
}
