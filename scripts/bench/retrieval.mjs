#!/usr/bin/env node
// Retrieval quality and speed of the knowledge-base index on BEIR SciFact
// (docs/benchmarks.md, "Retrieval").
//
//   npm run build && npm run bench:retrieval [-- --docs N] [--queries N] [--item-size N] [--sweep] [--json]
//
// Loads ../shared/data/scifact (corpus.jsonl.gz, queries.jsonl, qrels-test.tsv: 300 test
// queries) relative to the repository. Makes a scratch database on DATABASE_URL's server
// (`<database>_bench_retrieval`, dropped afterwards), migrates it, and ingests the corpus
// (title + abstract, one chunk per document) straight through the built IndexModule's
// SqlChunkIndex (`ingest: index`): items of --item-size documents (default 32, a document of as
// many chunks), four items at a time, embedded by the local model
// (universal-sentence-encoder-lite) in its worker pool, one thread per core. The ingest step
// is one function (ingestThroughIndex) so the real path (gateway upload + add-item) can replace it.
// Then, per search type (full_text, vector, hybrid): nDCG@10 and recall@100 over the test
// queries (searching 100 chunks, threshold 0), and the latency of the searches at limit 10
// (p50/p99, sequential, query embedding included for vector and hybrid).
// Needs PostgreSQL (with or without pgvector). Markdown on stdout (JSON with --json),
// progress on stderr.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { exitUnlessBuilt, fmt, log, machine, percentile, ROOT, runNode } from './bench-lib.mjs';

const ENTRIES = {
  index: 'dist/apps/knowledge-base/src/index/sql-chunk-index.js',
  embedder: 'dist/apps/knowledge-base/src/index/chunk-embedder.js',
  vectorPath: 'dist/apps/knowledge-base/src/index/vector-path.js',
  dataSource: 'dist/apps/knowledge-base/src/database/data-source.js',
  env: 'dist/apps/knowledge-base/src/config/knowledge-base.env.js',
  providers: 'dist/libs/providers/src/index.js',
  migrate: 'dist/tools/migrate/src/main.js',
};
const DATA = join(ROOT, '../shared/data/scifact');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

async function readJsonLines(file) {
  const input = file.endsWith('.gz') ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
  const rows = [];
  for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line.trim()) rows.push(JSON.parse(line));
  return rows;
}

function readQrels(file) {
  const qrels = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [query, doc, score] = line.split('\t');
    if (!query || !doc) continue;
    if (!qrels.has(query)) qrels.set(query, new Map());
    qrels.get(query).set(doc, Number(score));
  }
  return qrels;
}

function ndcgAt(ranked, relevant, k) {
  let dcg = 0;
  ranked.slice(0, k).forEach((doc, index) => (dcg += (relevant.get(doc) ?? 0) / Math.log2(index + 2)));
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

function recallAt(ranked, relevant, k) {
  const found = ranked.slice(0, k).filter((doc) => (relevant.get(doc) ?? 0) > 0).length;
  const total = [...relevant.values()].filter((gain) => gain > 0).length;
  return total > 0 ? found / total : 0;
}

/** The corpus into the index, item by item; answers where each chunk's document is. */
async function ingestThroughIndex(index, knowledgeBase, docs, itemSize) {
  const { randomUUID } = await import('node:crypto');
  const items = [];
  for (let start = 0; start < docs.length; start += itemSize) items.push({ id: randomUUID(), docs: docs.slice(start, start + itemSize) });
  const docOf = new Map();
  let next = 0;
  let done = 0;
  const ingestItem = async (item) => {
    const chunks = item.docs.map((doc, position) => ({ position, content: `${doc.title}\n${doc.text}`, tokens: 0 }));
    const result = await index.indexItem(knowledgeBase, { id: item.id, name: `scifact-${item.docs[0]._id}` }, chunks, async () => undefined);
    knowledgeBase.embedding_dimensions = result.dimensions;
    item.docs.forEach((doc, position) => docOf.set(`${item.id}:${position}`, doc._id));
    const before = done;
    done += item.docs.length;
    if (Math.floor(done / 512) > Math.floor(before / 512)) log(`ingested ${done}/${docs.length} documents`);
  };
  // The first item alone, so the dimension is known (and its HNSW index made) before the rest.
  await ingestItem(items[next++]);
  const worker = async () => {
    while (next < items.length) await ingestItem(items[next++]);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return docOf;
}

async function main() {
  exitUnlessBuilt(ENTRIES);
  for (const file of ['corpus.jsonl.gz', 'queries.jsonl', 'qrels-test.tsv']) {
    if (!existsSync(join(DATA, file))) {
      log(`${join(DATA, file)} missing: the SciFact files are expected in ../shared/data/scifact`);
      process.exit(1);
    }
  }
  const docsLimit = option('docs', Infinity);
  const queriesLimit = option('queries', Infinity);
  const itemSize = option('item-size', 32);
  const json = process.argv.includes('--json');
  const require = createRequire(import.meta.url);
  const { SqlChunkIndex } = require(join(ROOT, ENTRIES.index));
  const { ProviderChunkEmbedder } = require(join(ROOT, ENTRIES.embedder));
  const { detectVectorPath } = require(join(ROOT, ENTRIES.vectorPath));
  const { dataSourceOptions } = require(join(ROOT, ENTRIES.dataSource));
  const { KnowledgeBaseEnv } = require(join(ROOT, ENTRIES.env));
  const { ProviderRegistry, providerSettingsFromEnv } = require(join(ROOT, ENTRIES.providers));
  const { DataSource } = require('typeorm');
  const { Client } = require('pg');

  const corpus = (await readJsonLines(join(DATA, 'corpus.jsonl.gz'))).slice(0, docsLimit);
  const qrels = readQrels(join(DATA, 'qrels-test.tsv'));
  const inCorpus = new Set(corpus.map((doc) => doc._id));
  const queries = (await readJsonLines(join(DATA, 'queries.jsonl')))
    .filter((query) => qrels.has(query._id) && [...qrels.get(query._id).keys()].some((doc) => inCorpus.has(doc)))
    .slice(0, queriesLimit);
  log(`${corpus.length} documents, ${queries.length} test queries`);

  const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle';
  const url = new URL(baseUrl);
  const database = `${url.pathname.slice(1) || 'waggle'}_bench_retrieval`;
  const adminUrl = new URL(baseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
  await admin.query(`CREATE DATABASE "${database}"`);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  let dataSource;
  let registry;
  try {
    runNode(ENTRIES.migrate, [], { ...process.env, DATABASE_URL: databaseUrl }, 'migrations');
    dataSource = new DataSource(dataSourceOptions(databaseUrl));
    await dataSource.initialize();
    const vectorPath = await detectVectorPath(dataSource);
    const threads = availableParallelism();
    registry = new ProviderRegistry(providerSettingsFromEnv({ LOCAL_EMBEDDING_THREADS: threads }));
    const route = { modelId: 'universal-sentence-encoder-lite', provider: 'local', providerName: 'Waggle (local)', providerApi: 'local', providerModelId: 'universal-sentence-encoder-lite' };
    const env = new KnowledgeBaseEnv();
    const embedder = new ProviderChunkEmbedder(registry, async () => route, env.KB_EMBEDDING_BATCH_SIZE);
    // The local model's knowledge bases fuse with KB_HYBRID_LOCAL_VECTOR_WEIGHT.
    const fusion = { fullText: env.KB_HYBRID_FULL_TEXT_WEIGHT, vector: env.KB_HYBRID_LOCAL_VECTOR_WEIGHT, rankConstant: env.KB_HYBRID_RANK_CONSTANT };
    const options = { fusion, localVectorWeight: fusion.vector, hybridCandidates: env.KB_HYBRID_CANDIDATES };
    const index = new SqlChunkIndex(dataSource, embedder, vectorPath, options);
    const knowledgeBase = {
      id: '00000000-0000-4000-8000-000000000001',
      workspace_id: '00000000-0000-4000-8000-000000000002',
      embedding_model: 'universal-sentence-encoder-lite',
      embedding_dimensions: null,
    };

    log(`ingesting through the index (vectors: ${vectorPath.kind}, ${threads} embedding threads, items of ${itemSize})`);
    const ingestStart = performance.now();
    const docOf = await ingestThroughIndex(index, knowledgeBase, corpus, itemSize);
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    await dataSource.query('VACUUM ANALYZE knowledge_base.chunks, knowledge_base.chunk_postings, knowledge_base.chunk_vectors');
    log(`ingested ${corpus.length} documents in ${fmt(ingestSeconds, 1)} s`);

    const results = {};
    for (const type of ['full_text', 'vector', 'hybrid']) {
      let ndcg = 0;
      let recall = 0;
      for (const query of queries) {
        const found = await index.search(knowledgeBase, { query: query.text, type, limit: 100, threshold: 0 });
        const ranked = found.map((chunk) => docOf.get(`${chunk.knowledge_base_item_id}:${chunk.position}`));
        ndcg += ndcgAt(ranked, qrels.get(query._id), 10);
        recall += recallAt(ranked, qrels.get(query._id), 100);
      }
      const timings = [];
      for (const query of queries) {
        const started = performance.now();
        await index.search(knowledgeBase, { query: query.text, type, limit: 10, threshold: 0 });
        timings.push(performance.now() - started);
      }
      timings.sort((a, b) => a - b);
      results[type] = { ndcg10: ndcg / queries.length, recall100: recall / queries.length, p50: percentile(timings, 50), p99: percentile(timings, 99) };
      log(`${type}: nDCG@10 ${fmt(results[type].ndcg10, 4)}, recall@100 ${fmt(results[type].recall100, 4)}, p50 ${fmt(results[type].p50)} ms`);
    }

    // --sweep: hybrid's nDCG@10 and recall@100 at other vector weights, on the same index.
    const sweep = [];
    if (process.argv.includes('--sweep')) {
      for (const vectorWeight of [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1]) {
        const weighted = new SqlChunkIndex(dataSource, embedder, vectorPath, { ...options, localVectorWeight: vectorWeight });
        let ndcg = 0;
        let recall = 0;
        for (const query of queries) {
          const found = await weighted.search(knowledgeBase, { query: query.text, type: 'hybrid', limit: 100, threshold: 0 });
          const ranked = found.map((chunk) => docOf.get(`${chunk.knowledge_base_item_id}:${chunk.position}`));
          ndcg += ndcgAt(ranked, qrels.get(query._id), 10);
          recall += recallAt(ranked, qrels.get(query._id), 100);
        }
        sweep.push({ vectorWeight, ndcg10: ndcg / queries.length, recall100: recall / queries.length });
        log(`hybrid, vector weight ${vectorWeight}: nDCG@10 ${fmt(ndcg / queries.length, 4)}, recall@100 ${fmt(recall / queries.length, 4)}`);
      }
    }

    const report = {
      machine: machine(),
      ingest: { path: 'index', documents: corpus.length, seconds: ingestSeconds, docsPerSecond: corpus.length / ingestSeconds, itemSize, threads },
      vectors: vectorPath.kind,
      fusion,
      hybridCandidates: env.KB_HYBRID_CANDIDATES,
      queries: queries.length,
      results,
      sweep,
    };
    if (json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const lines = [
        `Retrieval on SciFact: ${corpus.length} documents, ${queries.length} test queries; ${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}`,
        `Ingest (${report.ingest.path}: items of ${itemSize} documents, local model, ${threads} threads): ${fmt(ingestSeconds, 1)} s, ${fmt(report.ingest.docsPerSecond, 1)} docs/s; vectors: ${vectorPath.kind}`,
        `Hybrid: weighted RRF, full_text ${fusion.fullText}, vector ${fusion.vector}, k ${fusion.rankConstant}, ${env.KB_HYBRID_CANDIDATES} candidates a side`,
        '',
        '| search_type | nDCG@10 | recall@100 | p50 ms (limit 10) | p99 ms |',
        '|---|---|---|---|---|',
        ...Object.entries(results).map(([type, r]) => `| ${type} | ${fmt(r.ndcg10, 4)} | ${fmt(r.recall100, 4)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`),
        ...(sweep.length ? ['', '| hybrid vector weight | nDCG@10 | recall@100 |', '|---|---|---|', ...sweep.map((r) => `| ${r.vectorWeight} | ${fmt(r.ndcg10, 4)} | ${fmt(r.recall100, 4)} |`)] : []),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
  } finally {
    await registry?.onModuleDestroy();
    await dataSource?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
    await admin.end();
  }
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
