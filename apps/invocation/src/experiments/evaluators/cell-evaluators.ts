import { Injectable } from '@nestjs/common';
import type { EvaluationResult, EvaluatorSpec } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { ModelRoutes, ProviderRegistry, toModelRoute } from '@waggle/providers';
import { catalogRefusal } from './catalog-refusal';
import { checkEvaluatorSpecs, invalidEvaluators, type EvaluatorProblem } from './evaluator-specs';
import { LlmJudge } from './llm-judge';
import {
  asText,
  comparedWith,
  containsMatch,
  costWithin,
  exactMatch,
  latencyWithin,
  NO_EXPECTED_OUTPUT,
  regexMatch,
  schemaMatch,
  similarityVerdict,
  type Verdict,
} from './scoring';
import { EmbeddingSimilarity } from './similarity';

/** What a cell's prompt run gave, as the evaluators read it. */
export interface CellOutcome {
  /** The run's response: text, or the parsed JSON of a structured output. */
  output: unknown;
  /** The response as text. */
  text: string;
  /** The row's expected output (text or JSON); null or undefined when the row has none. */
  expected_output: unknown;
  latency_ms: number;
  /** Null when the run's cost is unknown (a model without a price). */
  cost_micros: number | null;
}

/** Where an evaluation belongs: a judge's ledger record names the run and the cell's request. */
export interface EvaluationContext {
  workspaceId: string;
  experimentRunId: string;
  cellRequestId: string;
  /** Aborts the evaluation (the run cancelled, the worker stopping): `evaluate` rejects with its reason. */
  signal: AbortSignal;
}

/**
 * The evaluators of experiment runs (the spec's decisions: evaluators): `check` refuses a run's
 * list before anything of the run is written, `evaluate` grades one cell with each.
 */
@Injectable()
export class CellEvaluators {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly judge: LlmJudge,
    private readonly embeddings: EmbeddingSimilarity,
  ) {}

  /**
   * A run's evaluator list, checked: 1–20 objects of a known type with their fields in range,
   * unique names, patterns that compile in RE2 and schemas in Ajv; each judge's model an active
   * chat model of the catalog whose provider is configured; the embedding model usable when a
   * `similarity` evaluator is there. A problem answers 422 validation_error naming its field
   * (`evaluators[2].threshold`). Answers the specs with their names filled in.
   */
  async check(specs: unknown): Promise<EvaluatorSpec[]> {
    const checked = checkEvaluatorSpecs(specs);
    if (checked.problems.length > 0) throw invalidEvaluators(checked.problems);
    const problems: EvaluatorProblem[] = [];
    let similarityChecked = false;
    for (const [index, spec] of checked.specs.entries()) {
      if (spec.type === 'llm_judge') {
        const reason = await this.judgeModelProblem(spec.model);
        if (reason) problems.push({ field: `evaluators[${index}].model`, reason });
      } else if (spec.type === 'similarity' && !similarityChecked) {
        similarityChecked = true;
        const reason = await this.embeddings.problem();
        if (reason) problems.push({ field: `evaluators[${index}]`, reason });
      }
    }
    if (problems.length > 0) throw invalidEvaluators(problems);
    return checked.specs;
  }

  /**
   * One result per spec, in order. An evaluator's own failure (a judge that fails, embeddings
   * that cannot be made) is its result, never a rejection; only an abort of `context.signal`
   * rejects, with the signal's reason.
   */
  async evaluate(specs: EvaluatorSpec[], outcome: CellOutcome, context: EvaluationContext): Promise<EvaluationResult[]> {
    const results: EvaluationResult[] = [];
    for (const spec of specs) {
      context.signal.throwIfAborted();
      const verdict = await this.verdict(spec, outcome, context);
      results.push({ evaluator: spec.name ?? spec.type, type: spec.type, ...verdict });
    }
    return results;
  }

  private async verdict(spec: EvaluatorSpec, outcome: CellOutcome, context: EvaluationContext): Promise<Verdict> {
    switch (spec.type) {
      case 'exact':
        return exactMatch(outcome, comparedWith(spec.value, outcome.expected_output));
      case 'contains':
        return containsMatch(outcome, comparedWith(spec.value, outcome.expected_output), spec.case_sensitive);
      case 'regex':
        return regexMatch(outcome, comparedWith(spec.value, outcome.expected_output));
      case 'json_schema':
        return schemaMatch(outcome, spec.schema);
      case 'max_latency_ms':
        return latencyWithin(outcome.latency_ms, spec.value);
      case 'max_cost':
        return costWithin(outcome.cost_micros, spec.value);
      case 'similarity':
        return this.similarity(spec.value, spec.threshold, outcome, context.signal);
      case 'llm_judge':
        return this.judge.judge(spec.rubric, spec.model, { text: outcome.text, expected_output: outcome.expected_output }, context);
    }
  }

  private async similarity(value: string | undefined, threshold: number, outcome: CellOutcome, signal: AbortSignal): Promise<Verdict> {
    const expected = comparedWith(value, outcome.expected_output);
    if (expected === undefined) return NO_EXPECTED_OUTPUT;
    try {
      return similarityVerdict(await this.embeddings.similarity(outcome.text, asText(expected), signal), threshold);
    } catch (error) {
      signal.throwIfAborted();
      return { score: 0, passed: false, reason: `similarity failed: ${error instanceof WaggleException ? error.code : 'internal_error'}` };
    }
  }

  /** Why a judge's model cannot judge (not in the catalog, deprecated, not a chat model, its provider not configured). */
  private async judgeModelProblem(model: string): Promise<EvaluatorProblem['reason'] | undefined> {
    let route: Awaited<ReturnType<ModelRoutes['get']>>;
    try {
      route = await this.routes.get(model);
    } catch (error) {
      // Not in the catalog; an outage of the catalog is thrown as it is.
      const reason = catalogRefusal(error, model);
      return typeof reason !== 'string' && reason.detail === 'evaluator_model_unknown'
        ? { detail: 'evaluator_model_unknown', params: { model } }
        : { detail: 'evaluator_model_unusable', params: { model, reason } };
    }
    if (route.status === 'deprecated') return { detail: 'evaluator_model_deprecated', params: { model } };
    if (route.model_type !== 'llm') return { detail: 'evaluator_model_not_chat', params: { model } };
    try {
      this.registry.languageModel(toModelRoute(route));
      return undefined;
    } catch (error) {
      return { detail: 'evaluator_model_unusable', params: { model, reason: catalogRefusal(error, model) } };
    }
  }
}
