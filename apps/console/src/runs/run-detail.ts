import type { RunRow } from './runs-export';

/**
 * The Run detail screen's pure pieces: the run as `GET /v1/public/requests/{id}` answers it, what
 * its `data` says about model attempts and tool calls, and the operator's trace link.
 */
export interface RunLookup extends Omit<RunRow, 'user' | 'api_key_id' | 'model'> {
  data: Record<string, unknown> | null;
  surface: string | null;
}

/** One model call of a run (`data.attempts`, a workflow step's `model_attempts`). */
export interface ModelAttemptView {
  model: string;
  error_code: string | null;
  status?: number;
  duration_ms: number;
  repair?: boolean;
  violations?: number;
}

export interface ToolCallView {
  tool_name: string;
  tool_input: string;
  observation: string;
  duration_ms?: number;
}

/** The operator's settings, `GET /console/config.json`. */
export interface ConsoleConfig {
  trace_url_template: string | null;
}

export const isLive = (status: string): boolean => status === 'queued' || status === 'running';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every model call a run's record lists: `data.attempts` when the run had fallbacks or more than
 * one call, else the one call its answer names (`data.model`); none before it ends or for a run
 * that called no model. Entries not of the attempt's shape are skipped.
 */
export function modelAttemptsOf(data: Record<string, unknown> | null): ModelAttemptView[] {
  if (data === null) return [];
  if (Array.isArray(data.attempts))
    return data.attempts.filter(
      (attempt): attempt is ModelAttemptView =>
        isRecord(attempt) && typeof attempt.model === 'string' && typeof attempt.duration_ms === 'number',
    );
  if (typeof data.model === 'string') return [{ model: data.model, error_code: null, duration_ms: Number.NaN }];
  return [];
}

/** An agent run's tool calls, in the order it made them (`data.tool_calls`). */
export function toolCallsOf(data: Record<string, unknown> | null): ToolCallView[] {
  if (data === null || !Array.isArray(data.tool_calls)) return [];
  return data.tool_calls.filter((call): call is ToolCallView => isRecord(call) && typeof call.tool_name === 'string');
}

/**
 * The link to a trace in the operator's trace UI: the template with `{trace_id}` filled in (the
 * id is 32 hex digits; encoded all the same); null without a template or a trace, or when the
 * result is not an http(s) URL.
 */
export function traceUrl(template: string | null, traceId: string | null): string | null {
  if (template === null || traceId === null || !template.includes('{trace_id}')) return null;
  const url = template.replaceAll('{trace_id}', encodeURIComponent(traceId));
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'http:' || protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A value as indented JSON for a <pre> (a string as it is). */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? '';
}

/** A duration for people: ms under a second, else seconds with a decimal. */
export function durationText(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
