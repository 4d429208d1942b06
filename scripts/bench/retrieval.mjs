#!/usr/bin/env node
// Retrieval quality and speed of the knowledge bases on BEIR SciFact (docs/benchmarks/retrieval.md).
//
//   npm run build && npm run bench:retrieval -- --data DIR [--docs N] [--queries N] [--in-flight N] [--ingest api|index] [--item-size N] [--sweep] [--json]
//   npm run bench:retrieval -- --data DIR --check-data      # only find and check the data set
//
// Loads BEIR SciFact from the folder given by --data (or SCIFACT_DIR): BEIR's scifact.zip
// unzipped (corpus.jsonl, queries.jsonl, qrels/test.tsv: 300 test queries), which is not in
// the repository. It refuses to start when a file is missing or its SHA-256 is not the one the
// published figures were measured on, and says where to download it (scripts/bench/scifact.mjs).
// Makes a scratch database on DATABASE_URL's server
// (`<database>_bench_retrieval`, dropped afterwards) and migrates it. Then:
//
// --ingest api (the default, the real path): starts catalog, asset (files in a temporary
// directory), knowledge-base and gateway from dist/ on that database with their defaults
// (LOG_LEVEL warn), creates an enterprise workspace with the CLI and a knowledge base through
// the public route (the workspace's default embedding model, the local
// universal-sentence-encoder-lite), and for each document uploads `<_id>.txt` (title, blank
// line, abstract) with multipart POST /v1/public/workspaces/{id}/assets and adds it with POST
// /v1/private/knowledge_bases/{kb}/items {asset_id, name: <_id>}, --in-flight documents at a
// time (16); then polls the knowledge base until items_by_status.completed reaches the count.
// Ingest time: first upload to the last item completed. The service parses, chunks (its
// KB_CHUNK_TOKENS), embeds in its worker pool and indexes each item as a queued job.
// Quality and latency through the public search route (HTTP, as a client): nDCG@10 and
// recall@20 at search_chunk_limit 20 (the spec's maximum), threshold 0; p50/p99 of
// sequential searches at limit 10 on one keep-alive connection. Chunks map to documents by
// their item_name, a document ranked at its best chunk.
// recall@100 cannot come through the route (nor the NATS pattern: both cap the limit at 20),
// so the bench also opens the built ChunkIndexService on the same database, with the service's
// defaults, and searches the same knowledge base at limit 100 in its own process (label
// "index"): nDCG@10 and recall@100, and the index call's own latency at limit 10 (the
// service-side time without NATS and HTTP).
//
// --ingest index (the earlier path): no apps; items of --item-size documents (32, one chunk
// per document) straight into ChunkIndexService.indexItem, four at a time, and all figures
// from the index at limit 100.
//
// Needs PostgreSQL (with or without pgvector), Redis and NATS. Markdown on stdout (JSON with
// --json), progress on stderr.
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { scifactDir, scifactHelp, verifyScifact } from './scifact.mjs';
import {
  exitUnlessBuilt,
  fmt,
  freePort,
  httpRequest,
  log,
  machine,
  percentile,
  ROOT,
  runNode,
  sleep,
  startProcess,
  stopProcess,
  waitFor,
  waitForGatewayToSee,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = {
  index: 'dist/apps/knowledge-base/src/index/chunk-index.service.js',
  chunks: 'dist/apps/knowledge-base/src/index/chunks.repository.js',
  embedder: 'dist/apps/knowledge-base/src/index/chunk-embedder.js',
  dataSource: 'dist/apps/knowledge-base/src/database/data-source.js',
  env: 'dist/apps/knowledge-base/src/config/knowledge-base.env.js',
  providers: 'dist/libs/providers/src/index.js',
  ...distEntries('migrate', 'cli', 'catalog', 'asset', 'knowledge-base', 'gateway'),
};
const TYPES = ['full_text', 'vector', 'hybrid'];
const ROUTE_LIMIT = 20; // the spec's maximum search_chunk_limit
const INGEST_TIMEOUT_MS = 60 * 60_000;

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

async function readJsonLines(file) {
  const input = file.endsWith('.gz') ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
  const rows = [];
  for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line.trim()) rows.push(JSON.parse(line));
  return rows;
}

function readQrels(file) {
  const qrels = new Map();
  for (const line of readFileSync(file, 'utf8').replaceAll('\r', '').split('\n').slice(1)) {
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

/** Documents in the order of their best chunk (a document of several chunks counts once). */
function rankedDocs(chunks, docOfChunk) {
  const seen = new Set();
  for (const chunk of chunks) seen.add(docOfChunk(chunk));
  return [...seen];
}

/** nDCG@10 and recall@k of `search(query)` (chunks, best first) over the queries. */
async function quality(queries, qrels, search, docOfChunk, k) {
  let ndcg = 0;
  let recall = 0;
  for (const query of queries) {
    const ranked = rankedDocs(await search(query.text), docOfChunk);
    ndcg += ndcgAt(ranked, qrels.get(query._id), 10);
    recall += recallAt(ranked, qrels.get(query._id), k);
  }
  return { ndcg10: ndcg / queries.length, recall: recall / queries.length };
}

/** p50/p99 of sequential calls, one per query. */
async function latency(queries, call) {
  const timings = [];
  for (const query of queries) {
    const started = performance.now();
    await call(query.text);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 50), p99: percentile(timings, 99) };
}

/** The index as the knowledge-base service builds it (its env defaults), in this process. */
function openIndex(require, chunkRows, vectorPath) {
  const { ChunkIndexService } = require(join(ROOT, ENTRIES.index));
  const { ProviderChunkEmbedder } = require(join(ROOT, ENTRIES.embedder));
  const { KnowledgeBaseEnv } = require(join(ROOT, ENTRIES.env));
  const { ProviderRegistry, providerSettingsFromEnv } = require(join(ROOT, ENTRIES.providers));
  const threads = availableParallelism();
  const registry = new ProviderRegistry(providerSettingsFromEnv({ LOCAL_EMBEDDING_THREADS: threads }));
  const route = {
    modelId: 'universal-sentence-encoder-lite',
    provider: 'local',
    providerName: 'Waggle (local)',
    providerApi: 'local',
    providerModelId: 'universal-sentence-encoder-lite',
  };
  const env = new KnowledgeBaseEnv();
  const embedder = new ProviderChunkEmbedder(registry, async () => route, env.KB_EMBEDDING_BATCH_SIZE);
  // The local model's knowledge bases fuse with KB_HYBRID_LOCAL_VECTOR_WEIGHT.
  const fusion = {
    fullText: env.KB_HYBRID_FULL_TEXT_WEIGHT,
    vector: env.KB_HYBRID_LOCAL_VECTOR_WEIGHT,
    rankConstant: env.KB_HYBRID_RANK_CONSTANT,
  };
  const options = { fusion, localVectorWeight: fusion.vector, hybridCandidates: env.KB_HYBRID_CANDIDATES };
  const make = (overrides = {}) => new ChunkIndexService(chunkRows, embedder, vectorPath, { ...options, ...overrides });
  return { index: make(), make, registry, fusion, hybridCandidates: env.KB_HYBRID_CANDIDATES, threads };
}

/** --ingest index: the corpus into the index, item by item; answers where each chunk's document is. */
async function ingestThroughIndex(index, knowledgeBase, docs, itemSize) {
  const { randomUUID } = await import('node:crypto');
  const items = [];
  for (let start = 0; start < docs.length; start += itemSize) items.push({ id: randomUUID(), docs: docs.slice(start, start + itemSize) });
  const docOf = new Map();
  let next = 0;
  let done = 0;
  const ingestItem = async (item) => {
    const chunks = item.docs.map((doc, position) => ({ position, content: `${doc.title}\n${doc.text}`, tokens: 0 }));
    const result = await index.indexItem(
      knowledgeBase,
      { id: item.id, name: `scifact-${item.docs[0]._id}` },
      chunks,
      async () => undefined,
    );
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

/** One request on `agent` (keep-alive), JSON in and out; throws unless 200. */
function call(port, method, path, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text))
            : reject(new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The apps on the scratch database; answers the gateway's port and the processes. */
async function startStack(databaseUrl, assetDir, procs) {
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    ASSET_STORAGE_DRIVER: 'filesystem',
    ASSET_STORAGE_DIR: assetDir,
  };
  const stack = {};
  for (const name of ['catalog', 'asset', 'knowledge-base', 'gateway']) {
    const port = await freePort();
    stack[name] = Object.assign(startProcess(name, ENTRIES[name], { ...env, PORT: String(port) }), { port });
    procs.push(stack[name]);
  }
  for (const proc of Object.values(stack))
    await waitFor(proc, 'live', async () => (await httpRequest(proc.port, '/health/live')).status === 200);
  await waitForGatewayToSee(stack.gateway, ['catalog', 'asset', 'knowledge-base']);
  return { env, stack };
}

/**
 * --ingest api: every document uploaded as an asset and added as an item, `inFlight` at a
 * time, then the knowledge base polled until all are completed. Answers the seconds.
 */
async function ingestThroughApi({ port, auth, workspaceId, knowledgeBaseId, docs, inFlight, stack, dataSource }) {
  const base = `http://127.0.0.1:${port}`;
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  let next = 0;
  let added = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < docs.length) {
      const doc = docs[next++];
      const form = new FormData();
      form.append('file', new Blob([`${doc.title}\n\n${doc.text}`], { type: 'text/plain' }), `${doc._id}.txt`);
      const uploaded = await fetch(`${base}/v1/public/workspaces/${workspaceId}/assets`, { method: 'POST', headers: auth, body: form });
      if (uploaded.status !== 200)
        throw new Error(`upload of ${doc._id} answered ${uploaded.status}: ${(await uploaded.text()).slice(0, 300)}`);
      const { asset } = await uploaded.json();
      await call(port, 'POST', `/v1/private/knowledge_bases/${knowledgeBaseId}/items`, auth, { asset_id: asset.id, name: doc._id }, agent);
      added += 1;
    }
  };
  const uploading = Promise.all(Array.from({ length: inFlight }, worker));
  let failure;
  uploading.catch((error) => (failure = error));
  let lastLog = 0;
  for (;;) {
    if (failure) throw failure;
    for (const proc of Object.values(stack))
      if (proc.exit) throw new Error(`${proc.name} exited (code ${proc.exit.code}) during ingestion\n${proc.output()}`);
    const { knowledge_base: record } = await call(
      port,
      'GET',
      `/v1/public/workspaces/${workspaceId}/knowledge_bases/${knowledgeBaseId}`,
      auth,
      undefined,
      agent,
    );
    const counts = record.items_by_status;
    if (counts.completed + counts.failed >= docs.length) break;
    if (performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      log(`${fmt((performance.now() - started) / 1000, 0)} s: ${added}/${docs.length} added, ${JSON.stringify(counts)}`);
    }
    if (performance.now() - started > INGEST_TIMEOUT_MS)
      throw new Error(`not ingested within ${INGEST_TIMEOUT_MS / 60_000} min: ${JSON.stringify(counts)}`);
    await sleep(100);
  }
  const seconds = (performance.now() - started) / 1000;
  await uploading;
  // A failed item is reported with its error and left out (its document cannot be found).
  // From the service's table: the items route answers the whole list in one NATS message,
  // which 5,183 items overflow.
  const failed = await dataSource.query(
    "SELECT name, error FROM knowledge_base.knowledge_base_items WHERE knowledge_base_id = $1 AND run_status = 'failed' ORDER BY name",
    [knowledgeBaseId],
  );
  for (const item of failed) log(`FAILED item ${item.name}: ${item.error}`);
  agent.destroy();
  return { seconds, failed };
}

async function main() {
  const data = verifyScifact(scifactDir());
  if (!data.ok) {
    for (const problem of data.problems) log(problem);
    process.stderr.write(`${scifactHelp()}\n`);
    process.exit(1);
  }
  log(`SciFact in ${data.dir}: ${Object.values(data.files).join(', ')} (SHA-256 checked)`);
  if (process.argv.includes('--check-data')) process.exit(0);
  exitUnlessBuilt(ENTRIES);
  const docsLimit = Number(option('docs', Infinity));
  const queriesLimit = Number(option('queries', Infinity));
  const itemSize = Number(option('item-size', 32));
  const inFlight = Number(option('in-flight', 16));
  const ingestPath = option('ingest', 'api');
  if (!['api', 'index'].includes(ingestPath)) {
    log('--ingest is api (the default: gateway upload and add-item) or index (straight into ChunkIndexService)');
    process.exit(2);
  }
  const json = process.argv.includes('--json');
  const require = createRequire(import.meta.url);
  const { ChunksRepository } = require(join(ROOT, ENTRIES.chunks));
  const { dataSourceOptions } = require(join(ROOT, ENTRIES.dataSource));
  const { DataSource } = require('typeorm');
  const { Client } = require('pg');

  const corpus = (await readJsonLines(data.files.corpus)).slice(0, docsLimit);
  const qrels = readQrels(data.files.qrels);
  const inCorpus = new Set(corpus.map((doc) => doc._id));
  const queries = (await readJsonLines(data.files.queries))
    .filter((query) => qrels.has(query._id) && [...qrels.get(query._id).keys()].some((doc) => inCorpus.has(doc)))
    .slice(0, queriesLimit);
  log(`${corpus.length} documents, ${queries.length} test queries, ingest path ${ingestPath}`);

  const baseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle';
  const url = new URL(baseUrl);
  const database = `${url.pathname.slice(1) || 'waggle'}_bench_retrieval`;
  const adminUrl = new URL(baseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${database}"`);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const assetDir = mkdtempSync(join(tmpdir(), 'waggle-bench-retrieval-'));
  const procs = [];
  let dataSource;
  let opened;
  let failed = false;
  try {
    runNode(ENTRIES.migrate, [], { ...process.env, DATABASE_URL: databaseUrl }, 'migrations');
    dataSource = new DataSource(dataSourceOptions(databaseUrl));
    await dataSource.initialize();
    const chunkRows = new ChunksRepository(dataSource);
    const vectorPath = await chunkRows.detectVectorPath();
    opened = openIndex(require, chunkRows, vectorPath);
    const { index, fusion, threads } = opened;

    const results = { route: {}, index: {} };
    let knowledgeBase;
    let docOfIndexChunk;
    let ingest;
    if (ingestPath === 'api') {
      log('starting catalog, asset, knowledge-base and gateway');
      const { env, stack } = await startStack(databaseUrl, assetDir, procs);
      const created = JSON.parse(
        runNode(
          ENTRIES.cli,
          ['workspace', 'create', '--name', 'bench-retrieval', '--plan', 'enterprise', '--json'],
          env,
          'workspace create',
        ),
      );
      const auth = { authorization: `Bearer ${created.api_key}` };
      const port = stack.gateway.port;
      const kbPath = `/v1/public/workspaces/${created.workspace_id}/knowledge_bases`;
      const { knowledge_base: made } = await call(port, 'POST', kbPath, auth, { knowledge_base: { name: 'SciFact' } });
      log(`ingesting through the gateway into knowledge base ${made.id} (${made.embedding_model}), ${inFlight} documents in flight`);
      const { seconds, failed: failedItems } = await ingestThroughApi({
        port,
        auth,
        workspaceId: created.workspace_id,
        knowledgeBaseId: made.id,
        docs: corpus,
        inFlight,
        stack,
        dataSource,
      });
      const { knowledge_base: record } = await call(port, 'GET', `${kbPath}/${made.id}`, auth);
      const [{ count: chunks }] = await dataSource.query(
        'SELECT count(*)::int AS count FROM knowledge_base.chunks WHERE knowledge_base_id = $1',
        [made.id],
      );
      ingest = {
        path: 'api',
        documents: corpus.length,
        seconds,
        docsPerSecond: corpus.length / seconds,
        inFlight,
        items: record.items_by_status,
        chunks,
        failedItems,
      };
      log(`ingested ${corpus.length} documents in ${fmt(seconds, 1)} s (${chunks} chunks)`);
      await dataSource.query('VACUUM ANALYZE knowledge_base.chunks, knowledge_base.chunk_postings, knowledge_base.chunk_vectors');
      knowledgeBase = {
        id: made.id,
        workspace_id: created.workspace_id,
        embedding_model: record.embedding_model,
        embedding_dimensions: record.embedding_dimensions,
      };
      docOfIndexChunk = (chunk) => chunk.item_name;

      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const search = (type, limit) => async (text) =>
        (
          await call(
            port,
            'POST',
            `${kbPath}/${made.id}/search`,
            auth,
            { search_query: text, search_type: type, search_chunk_limit: limit, search_score_threshold: 0 },
            agent,
          )
        ).response.chunks;
      for (const type of TYPES) {
        const found = await quality(queries, qrels, search(type, ROUTE_LIMIT), (chunk) => chunk.item_name, ROUTE_LIMIT);
        results.route[type] = { ndcg10: found.ndcg10, recall20: found.recall, ...(await latency(queries, search(type, 10))) };
        log(`route ${type}: nDCG@10 ${fmt(found.ndcg10, 4)}, recall@20 ${fmt(found.recall, 4)}, p50 ${fmt(results.route[type].p50)} ms`);
      }
      agent.destroy();
    } else {
      knowledgeBase = {
        id: '00000000-0000-4000-8000-000000000001',
        workspace_id: '00000000-0000-4000-8000-000000000002',
        embedding_model: 'universal-sentence-encoder-lite',
        embedding_dimensions: null,
      };
      log(`ingesting through the index (vectors: ${vectorPath.kind}, ${threads} embedding threads, items of ${itemSize})`);
      const started = performance.now();
      const docOf = await ingestThroughIndex(index, knowledgeBase, corpus, itemSize);
      const seconds = (performance.now() - started) / 1000;
      ingest = { path: 'index', documents: corpus.length, seconds, docsPerSecond: corpus.length / seconds, itemSize, threads };
      await dataSource.query('VACUUM ANALYZE knowledge_base.chunks, knowledge_base.chunk_postings, knowledge_base.chunk_vectors');
      log(`ingested ${corpus.length} documents in ${fmt(seconds, 1)} s`);
      docOfIndexChunk = (chunk) => docOf.get(`${chunk.knowledge_base_item_id}:${chunk.position}`);
    }

    // The index itself, in this process, on the same rows: recall@100 and the index call's time.
    const indexSearch = (searcher, type, limit) => (text) => searcher.search(knowledgeBase, { query: text, type, limit, threshold: 0 });
    for (const type of TYPES) {
      const found = await quality(queries, qrels, indexSearch(index, type, 100), docOfIndexChunk, 100);
      results.index[type] = { ndcg10: found.ndcg10, recall100: found.recall, ...(await latency(queries, indexSearch(index, type, 10))) };
      log(`index ${type}: nDCG@10 ${fmt(found.ndcg10, 4)}, recall@100 ${fmt(found.recall, 4)}, p50 ${fmt(results.index[type].p50)} ms`);
    }

    // --sweep: hybrid's nDCG@10 and recall@100 at other vector weights, on the same index.
    const sweep = [];
    if (process.argv.includes('--sweep')) {
      for (const vectorWeight of [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1]) {
        const found = await quality(
          queries,
          qrels,
          indexSearch(opened.make({ localVectorWeight: vectorWeight }), 'hybrid', 100),
          docOfIndexChunk,
          100,
        );
        sweep.push({ vectorWeight, ndcg10: found.ndcg10, recall100: found.recall });
        log(`hybrid, vector weight ${vectorWeight}: nDCG@10 ${fmt(found.ndcg10, 4)}, recall@100 ${fmt(found.recall, 4)}`);
      }
    }

    const report = {
      machine: machine(),
      dataSet: data.files,
      ingest,
      vectors: vectorPath.kind,
      fusion,
      hybridCandidates: opened.hybridCandidates,
      queries: queries.length,
      results,
      sweep,
    };
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : markdown(report, corpus.length));
  } catch (error) {
    failed = true;
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    for (const proc of procs.reverse()) await stopProcess(proc);
    await opened?.registry.onModuleDestroy();
    await dataSource?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    rmSync(assetDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

function markdown(r, documents) {
  const { ingest, results, fusion } = r;
  const how =
    ingest.path === 'api'
      ? `api: gateway upload + add-item, ${ingest.inFlight} in flight, the service's queue and worker pool; ${ingest.chunks} chunks`
      : `index: items of ${ingest.itemSize} documents straight into ChunkIndexService, ${ingest.threads} threads`;
  const lines = [
    `Retrieval on SciFact: ${documents} documents, ${r.queries} test queries; ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}, ${r.machine.date}`,
    `Ingest (${how}): ${fmt(ingest.seconds, 1)} s, ${fmt(ingest.docsPerSecond, 1)} docs/s; vectors: ${r.vectors}`,
    ...(ingest.failedItems?.length
      ? [`Failed items (left out): ${ingest.failedItems.map((item) => `${item.name} (${item.error})`).join('; ')}`]
      : []),
    `Hybrid: weighted RRF, full_text ${fusion.fullText}, vector ${fusion.vector}, k ${fusion.rankConstant}, ${r.hybridCandidates} candidates a side`,
    '',
  ];
  if (Object.keys(results.route).length) {
    lines.push(
      `Public route (HTTP through the gateway; quality at search_chunk_limit ${ROUTE_LIMIT}, latency at 10, sequential):`,
      '',
      '| search_type | nDCG@10 | recall@20 | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      ...TYPES.map(
        (type) =>
          `| ${type} | ${fmt(results.route[type].ndcg10, 4)} | ${fmt(results.route[type].recall20, 4)} | ${fmt(results.route[type].p50)} | ${fmt(results.route[type].p99)} |`,
      ),
      '',
    );
  }
  lines.push(
    'Index (ChunkIndexService.search in the bench process on the same rows; quality at limit 100, latency of the call at 10):',
    '',
    '| search_type | nDCG@10 | recall@100 | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...TYPES.map(
      (type) =>
        `| ${type} | ${fmt(results.index[type].ndcg10, 4)} | ${fmt(results.index[type].recall100, 4)} | ${fmt(results.index[type].p50)} | ${fmt(results.index[type].p99)} |`,
    ),
  );
  if (r.sweep.length)
    lines.push(
      '',
      '| hybrid vector weight | nDCG@10 | recall@100 |',
      '|---|---|---|',
      ...r.sweep.map((s) => `| ${s.vectorWeight} | ${fmt(s.ndcg10, 4)} | ${fmt(s.recall100, 4)} |`),
    );
  return `${lines.join('\n')}\n`;
}

await main();
