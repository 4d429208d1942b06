#!/usr/bin/env node
// Fallbacks and structured output: what a fallback adds when the first model fails fast, and
// what a repair costs (docs/benchmarks/fallbacks.md).
//
//   npm run build && npm run bench:fallbacks [-- --calls N] [--json]
//
// Measured at the provider layer (ModelRun, the code every prompt run, agent turn and workflow
// prompt step goes through), against the fake provider in this process over real HTTP (the
// OpenAI-compatible protocol), provider retries off. Interleaved, one call at a time, N each:
//   direct:   ModelRun([fallback]): the fallback alone answers;
//   failed:   ModelRun([primary]):  the primary alone, answering 500 at once (the failed call);
//   chain:    ModelRun([primary, fallback]): the primary's 500, then the fallback's answer.
// What a fallback adds beyond the failed call = chain − failed − direct (medians); aim ≤ 5 ms.
// Repair: an instructed model answering JSON invalid once, then valid: model calls and time
// against a valid answer, and an answer invalid every time (2 calls, then 502).
import { join } from 'node:path';
import { fmt, log, machine, ROOT, summarize } from './bench-lib.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const CALLS = option('calls', 300);
const JSON_OUTPUT = args.includes('--json');

// CommonJS builds: their exports are the default export's properties.
const load = async (path) => (await import(join(ROOT, path)).catch(() => null))?.default ?? null;
const providers = await load('dist/libs/providers/src/index.js');
const fakeLib = await load('dist/libs/fake-provider/src/index.js');
if (!providers || !fakeLib) {
  log('dist/libs missing: run npm run build first');
  process.exit(1);
}
const { ModelRun, ProviderRegistry, providerSettingsFromEnv } = providers;

const fake = new fakeLib.FakeProviderServer({}, { maxRecords: 100 });
const url = await fake.start();
const registry = new ProviderRegistry(
  providerSettingsFromEnv({
    FAKE_API_KEY: 'bench',
    FAKE_BASE_URL: `${url}/v1`,
    PROVIDER_MAX_RETRIES: 0,
    PROVIDER_FIRST_BYTE_TIMEOUT_MS: 60_000,
  }),
);
const route = (modelId) => ({
  modelId,
  provider: 'fake',
  providerName: 'Fake',
  providerApi: 'openai-compatible',
  providerModelId: modelId,
});
const PRIMARY = route('bench-primary');
const FALLBACK = route('bench-fallback');
const INSTRUCTED = route('bench-json');
fake.setModel('bench-primary', { error: { status: 500 } });
fake.setModel('bench-fallback', { response: 'ok' });
const call = { messages: [{ role: 'user', content: 'hello' }], params: { maxOutputTokens: 16 } };
const FORMAT = {
  type: 'json_schema',
  name: 'place',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

// Warm-up: connections, model objects, the SDK's first-call costs.
for (let index = 0; index < 50; index += 1) {
  await new ModelRun(registry, [PRIMARY, FALLBACK]).complete(call);
  await new ModelRun(registry, [FALLBACK]).complete(call);
}

const legs = { direct: [], failed: [], chain: [] };
let failures = 0;
for (let index = 0; index < CALLS; index += 1) {
  legs.direct.push(await timed(() => new ModelRun(registry, [FALLBACK]).complete(call)));
  legs.failed.push(await timed(() => new ModelRun(registry, [PRIMARY]).complete(call).catch(() => undefined)));
  legs.chain.push(
    await timed(async () => {
      const result = await new ModelRun(registry, [PRIMARY, FALLBACK]).complete(call);
      if (result.model !== 'bench-fallback' || result.attempts.length !== 2) failures += 1;
    }),
  );
}
const stats = Object.fromEntries(Object.entries(legs).map(([name, values]) => [name, summarize(values)]));
const added = stats.chain.p50 - stats.failed.p50 - stats.direct.p50;

// Repair cost.
const repairLegs = { valid: [], repaired: [] };
const calls = { valid: 0, repaired: 0, invalid: 0 };
for (let index = 0; index < Math.min(CALLS, 100); index += 1) {
  fake.setModel('bench-json', { json: { answer: 'valid', value: { city: 'Paris' } } });
  repairLegs.valid.push(
    await timed(async () => {
      calls.valid = (await new ModelRun(registry, [INSTRUCTED]).complete({ ...call, params: { responseFormat: FORMAT } })).attempts.length;
    }),
  );
  fake.setModel('bench-json', { json: { answer: 'invalid_once', value: { city: 'Paris' } } });
  repairLegs.repaired.push(
    await timed(async () => {
      calls.repaired = (
        await new ModelRun(registry, [INSTRUCTED]).complete({ ...call, params: { responseFormat: FORMAT } })
      ).attempts.length;
    }),
  );
}
fake.setModel('bench-json', { json: { answer: 'invalid' } });
const invalidRun = new ModelRun(registry, [INSTRUCTED]);
const invalidStatus = await invalidRun.complete({ ...call, params: { responseFormat: FORMAT } }).then(
  () => 'answered',
  (error) => `${error.status} ${error.code}`,
);
calls.invalid = invalidRun.attempts.length;
const repairStats = Object.fromEntries(Object.entries(repairLegs).map(([name, values]) => [name, summarize(values)]));
await fake.stop();

const report = {
  machine: machine(),
  calls: CALLS,
  legs: stats,
  addedMs: added,
  failures,
  repair: { stats: repairStats, calls, invalidStatus },
};
if (JSON_OUTPUT) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const { cpu, cores, node } = report.machine;
  const lines = [
    `Fallbacks and structured output (${CALLS} calls a leg, ${cores} × ${cpu}, Node ${node})`,
    '',
    '| leg | p50 ms | p99 ms |',
    '| --- | ---: | ---: |',
    ...Object.entries(stats).map(([name, value]) => `| ${name} | ${fmt(value.p50)} | ${fmt(value.p99)} |`),
    '',
    `A fallback adds ${fmt(added)} ms at p50 beyond the failed call and the fallback's own answer (aim ≤ 5 ms).`,
    '',
    '| structured answer | model calls | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: |',
    `| valid at once | ${calls.valid} | ${fmt(repairStats.valid.p50)} | ${fmt(repairStats.valid.p99)} |`,
    `| invalid once, repaired | ${calls.repaired} | ${fmt(repairStats.repaired.p50)} | ${fmt(repairStats.repaired.p99)} |`,
    `| invalid every time | ${calls.invalid} | – | – (${invalidStatus}) |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
process.exit(failures === 0 && calls.valid === 1 && calls.repaired === 2 && calls.invalid === 2 ? 0 : 1);
