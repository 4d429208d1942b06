import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { toErrorBody, type ErrorBody, type ErrorOnlyBody } from './error-body';
import { errorCodes } from './error-catalog';
import { ERROR_MESSAGES } from './error-messages.data';
import { errorMessage, errorMessageIds, nestedMessage, type ErrorDetail } from './error-messages';
import { WaggleException } from './waggle.exception';

const REPO_ROOT = join(__dirname, '../../..');

/** Words that give English away; identifiers (snake_case, camelCase, CONSTANTS) are left out before looking. */
const ENGLISH_WORDS = new Set(
  (
    'the is are was were be been not found could cannot must of and or with without for from has have had please retry ' +
    'failed invalid missing available unavailable answered shortly try again too large exceeded reached your this that ' +
    'which does did yet any only when while model request file limit run step send give provider stream'
  ).split(' '),
);

function englishWordsIn(text: string): string[] {
  return text
    .split(/[\s,;:.()"'?=/]+/)
    .filter((token) => !/_|[a-z][A-Z]|^[A-Z0-9-]{2,}$/.test(token))
    .map((token) => token.toLowerCase())
    .filter((word) => ENGLISH_WORDS.has(word));
}

function placeholdersOf(template: string): string[] {
  return [...template.matchAll(/%\{(\w+)\}/g)].map((match) => match[1]).sort();
}

/** Sample values, numbers so that no English can come from them. */
function sampleParams(template: string): Record<string, number> {
  return Object.fromEntries(placeholdersOf(template).map((name, index) => [name, 40 + index]));
}

const messageOf = (body: ErrorBody | ErrorOnlyBody) => ('message' in body ? body.message : body.error);

describe('errors in a Spanish workspace', () => {
  it.each(errorCodes())('%s answers in Spanish', (code) => {
    const exception = new WaggleException(code, { params: { model: 'gpt-x', limit: 5 } });
    const spanish = messageOf(toErrorBody(exception, 'es'));
    expect(spanish).not.toEqual(messageOf(toErrorBody(exception, 'en')));
    expect(englishWordsIn(spanish)).toEqual([]);
  });

  it.each(errorMessageIds())('the detail message %s answers in Spanish', (id) => {
    const text = { detail: id, params: sampleParams(ERROR_MESSAGES[id].en) } as ErrorDetail;
    const exception = new WaggleException('validation_error', text);
    const english = messageOf(toErrorBody(exception, 'en'));
    const spanish = messageOf(toErrorBody(exception, 'es'));
    expect(english).toBe(exception.message);
    expect(english).not.toMatch(/%\{/);
    expect(spanish).not.toEqual(english);
    expect(englishWordsIn(spanish)).toEqual([]);
  });

  it("renders a validation failure's details in Spanish, every field message of every rule (details[].messages)", () => {
    const rules = errorMessageIds().filter(
      (id) => id.startsWith('validation_') || id.startsWith('metadata_') || id.startsWith('response_schema_'),
    );
    expect(rules.length).toBeGreaterThan(30);
    const details = rules.map((id) => ({ field: id, messages: [{ detail: id, params: sampleParams(ERROR_MESSAGES[id].en) }] }));
    const exception = new WaggleException('validation_error', { details });
    const bodyIn = (locale: 'en' | 'es') =>
      toErrorBody(exception, locale) as ErrorBody & { details: Array<{ field: string; messages: string[] }> };
    const english = bodyIn('en').details;
    bodyIn('es').details.forEach(({ field, messages: [spanish] }, index) => {
      expect({ field, spanish: typeof spanish }).toEqual({ field, spanish: 'string' });
      expect(spanish).not.toEqual(english[index]?.messages[0]);
      expect({ field, english: englishWordsIn(spanish ?? '') }).toEqual({ field, english: [] });
    });
    // Free text stays as it is; the wire form (ids and parameters) is what crosses processes.
    const relayed = WaggleException.fromWire(
      JSON.parse(
        JSON.stringify(
          new WaggleException('validation_error', {
            details: [{ field: 'a', messages: ['as sent', { detail: 'validation_is_string', params: { property: 'a' } }] }],
          }).toWire(),
        ),
      ),
    );
    expect(relayed && toErrorBody(relayed, 'es')).toMatchObject({
      details: [{ field: 'a', messages: ['as sent', 'a debe ser una cadena de texto'] }],
    });
  });

  it.each(errorMessageIds())('the detail message %s has the same placeholders in both locales', (id) => {
    expect(placeholdersOf(ERROR_MESSAGES[id].es)).toEqual(placeholdersOf(ERROR_MESSAGES[id].en));
  });

  it('renders a nested reason in the same locale, the English text as before', () => {
    const reason = nestedMessage({
      detail: 'url_non_public',
      params: {
        field: { detail: 'url_word_callback' },
        range: { detail: 'address_range_a', params: { label: { detail: 'range_loopback' } } },
      },
    });
    const exception = new WaggleException('validation_error', { detail: 'url_refused', params: { reason } });
    expect(exception.message).toBe('callback_url points to a loopback address');
    expect(exception.messageIn('es')).toBe('URL rechazada: el campo callback_url apunta a una dirección de bucle local');
    const relayed = WaggleException.fromWire(JSON.parse(JSON.stringify(exception.toWire())));
    expect(relayed?.messageIn('es')).toBe(exception.messageIn('es'));
    expect(errorMessage({ detail: 'not_an_id' } as unknown as ErrorDetail, 'es')).toBe('not_an_id');
  });

  it('tells English from Spanish', () => {
    expect(englishWordsIn('Workspace not found')).toEqual(['not', 'found']);
    expect(englishWordsIn('No hay ningún proveedor configurado (WEB_SEARCH_PROVIDER)')).toEqual([]);
  });

  it('takes no free-text message: a specific message is a detail id', () => {
    // @ts-expect-error `message` is not an option: English would reach every workspace as it is.
    const exception = new WaggleException('not_found', { message: 'Workspace not found' });
    expect(toErrorBody(exception, 'es')).toMatchObject({ message: 'No se encontró el recurso en esta cuenta.' });
    // @ts-expect-error a detail's params are its template's placeholders.
    expect(new WaggleException('not_found', { detail: 'plan_not_found', params: { plan: 'x' } }).message).toBe('Plan not found: %{key}');
  });
});

/** Every source file under apps/ and libs/, specs left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the sources', () => {
  it('raise no WaggleException with a free-text message', () => {
    const offenders: string[] = [];
    for (const file of [...sourceFiles(join(REPO_ROOT, 'apps')), ...sourceFiles(join(REPO_ROOT, 'libs'))]) {
      const text = readFileSync(file, 'utf8');
      // The options object of each construction, up to its closing parenthesis at the same depth.
      for (const match of text.matchAll(/new WaggleException\(/g)) {
        let depth = 1;
        let end = match.index + match[0].length;
        while (depth > 0 && end < text.length) {
          if (text[end] === '(') depth += 1;
          else if (text[end] === ')') depth -= 1;
          end += 1;
        }
        const call = text.slice(match.index, end);
        if (/[{,]\s*message\s*[:,}]/.test(call)) offenders.push(`${relative(REPO_ROOT, file)}: ${call.split('\n')[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
