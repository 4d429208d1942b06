import type { Attributes } from '@opentelemetry/api';

/** A part of a search whose time its span shows: the query's embedding, each ranking, a reranking. */
export type SearchLeg = 'embed' | 'vector' | 'keyword' | 'rerank';

/**
 * The time one search spent in each of its legs, summed over the leg's calls (a hybrid search
 * ranks twice per side), for the search's span: which leg a slow search waited on. Only a search
 * whose span is recorded is timed.
 */
export class SearchLegs {
  private readonly spent = new Map<SearchLeg, number>();

  async time<T>(leg: SearchLeg, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.spent.set(leg, (this.spent.get(leg) ?? 0) + performance.now() - started);
    }
  }

  /** `waggle.search.{leg}_ms` of every leg that ran, in ms to a tenth. */
  attributes(): Attributes {
    return Object.fromEntries([...this.spent].map(([leg, ms]) => [`waggle.search.${leg}_ms`, Math.round(ms * 10) / 10]));
  }
}

/** `work`, timed as `leg` when the search is timed. */
export function timedLeg<T>(legs: SearchLegs | undefined, leg: SearchLeg, work: () => Promise<T>): Promise<T> {
  return legs ? legs.time(leg, work) : work();
}
