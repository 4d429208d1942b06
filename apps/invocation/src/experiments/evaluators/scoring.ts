import { answerViolations, withRe2Pattern } from '@waggle/contracts';
import { canonicalJson } from '@waggle/platform';

/** What one evaluator says of a cell, before its name and type are put on it. */
export interface Verdict {
  score: number;
  passed: boolean;
  reason: string;
}

/** A cell's outcome as the comparing evaluators read it. */
export interface ComparedOutcome {
  /** The run's response: text, or the parsed JSON of a structured output. */
  output: unknown;
  /** The response as text. */
  text: string;
}

/** Quoted texts in a reason are cut to this many characters: a reason is a summary, not a copy. */
export const REASON_QUOTE_CHARS = 200;
/** Schema violations a `json_schema` reason lists. */
export const REASON_VIOLATIONS = 3;

export const NO_EXPECTED_OUTPUT: Verdict = Object.freeze({ score: 0, passed: false, reason: 'no expected output' });

/** A value quoted in a reason: JSON text unless it is text, cut to REASON_QUOTE_CHARS. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > REASON_QUOTE_CHARS ? `${text.slice(0, REASON_QUOTE_CHARS)}…` : text);
}

function verdict(passed: boolean, reason: string): Verdict {
  return { score: passed ? 1 : 0, passed, reason };
}

/** What an evaluator compares with: its own value, else the row's expected output; undefined when neither is given. */
export function comparedWith(value: unknown, expected: unknown): unknown {
  if (value !== undefined) return value;
  return expected === null ? undefined : expected;
}

/** Text as itself, any other JSON value as its canonical JSON text. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : canonicalJson(value, 'code-unit');
}

/** A value as JSON data: text is parsed when it is JSON, kept as text when it is not. */
function asJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * `exact`: the output equals the expected value. Two texts are compared as they are, but for
 * the whitespace around them (a model's trailing newline is not a different answer); when
 * either side is JSON (a structured output, an expected object), both are compared as
 * canonical JSON, so key order and spacing do not matter.
 */
export function exactMatch(outcome: ComparedOutcome, expected: unknown): Verdict {
  if (expected === undefined) return NO_EXPECTED_OUTPUT;
  const jsonSide = typeof expected !== 'string' || typeof outcome.output !== 'string';
  const passed = jsonSide
    ? canonicalJson(asJson(outcome.output), 'code-unit') === canonicalJson(asJson(expected), 'code-unit')
    : outcome.text.trim() === expected.trim();
  return verdict(passed, passed ? 'equal' : `expected ${quote(expected)}, got ${quote(outcome.text)}`);
}

/** `contains`: the expected text (canonical JSON text for a JSON value) is in the output text; case-insensitive unless asked. */
export function containsMatch(outcome: ComparedOutcome, expected: unknown, caseSensitive = false): Verdict {
  if (expected === undefined) return NO_EXPECTED_OUTPUT;
  const needle = asText(expected);
  const passed = caseSensitive ? outcome.text.includes(needle) : outcome.text.toLowerCase().includes(needle.toLowerCase());
  return verdict(passed, passed ? `contains ${quote(needle)}` : `expected to contain ${quote(needle)}, got ${quote(outcome.text)}`);
}

/**
 * `regex`: the RE2 pattern matches anywhere in the output text. A pattern from a row's
 * expected output was never checked when the run was created: one that does not compile fails
 * the cell's evaluation, with why.
 */
export function regexMatch(outcome: ComparedOutcome, expected: unknown): Verdict {
  if (expected === undefined) return NO_EXPECTED_OUTPUT;
  if (typeof expected !== 'string') return verdict(false, `the expected output is not a pattern (text): ${quote(expected)}`);
  const matched = withRe2Pattern(expected, '', (pattern) => pattern.test(outcome.text));
  if (!matched.ok) return verdict(false, `not a valid RE2 pattern: ${matched.problem}`);
  return verdict(
    matched.value,
    matched.value ? `matches /${expected}/` : `expected a match of ${quote(expected)}, got ${quote(outcome.text)}`,
  );
}

/** `json_schema`: the output (parsed when it is text) is valid against the schema; the reason lists the first violations. */
export function schemaMatch(outcome: ComparedOutcome, schema: Record<string, unknown>): Verdict {
  const answer = typeof outcome.output === 'string' ? outcome.output : (JSON.stringify(outcome.output) ?? 'null');
  const violations = answerViolations({ type: 'json_schema', schema }, answer);
  if (violations.length === 0) return verdict(true, 'valid');
  const listed = violations
    .slice(0, REASON_VIOLATIONS)
    .map(({ path, message }) => `${path === '' ? '(the whole output)' : path}: ${message}`)
    .join('; ');
  const more = violations.length > REASON_VIOLATIONS ? ` (and ${violations.length - REASON_VIOLATIONS} more)` : '';
  return verdict(false, `${listed}${more}`);
}

/** `max_latency_ms`: the cell's run took at most `max` ms. */
export function latencyWithin(latencyMs: number, max: number): Verdict {
  const passed = latencyMs <= max;
  return verdict(passed, `took ${latencyMs} ms (${passed ? 'within' : 'over'} ${max} ms)`);
}

/** `max_cost`: the cell's run cost at most `maxUsd`; a run whose cost is unknown (an unpriced model) does not pass. */
export function costWithin(costMicros: number | null, maxUsd: number): Verdict {
  if (costMicros === null) return verdict(false, `cost unknown (no price for the model), so not shown to be within ${maxUsd} USD`);
  const usd = costMicros / 1e6;
  const passed = usd <= maxUsd;
  return verdict(passed, `cost ${usd} USD (${passed ? 'within' : 'over'} ${maxUsd} USD)`);
}

/** Cosine similarity of two vectors; 0 when either has no length. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    dot += a[index] * b[index];
    normA += a[index] * a[index];
    normB += b[index] * b[index];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** `similarity`: score max(0, cosine), rounded to 4 decimals; passes at or above the threshold. */
export function similarityVerdict(similarity: number, threshold: number): Verdict {
  const score = Math.round(Math.max(0, Math.min(1, similarity)) * 10_000) / 10_000;
  const passed = score >= threshold;
  return { score, passed, reason: `similarity ${score} (${passed ? 'at or above' : 'below'} ${threshold})` };
}
