#!/usr/bin/env node
// The provider call alone, in process: CPU time per model call of the provider layer
// (`complete` and `stream` of libs/providers, as invocation makes them), on the AI SDK's
// OpenAI-compatible provider (`sdk`) and on the lean chat-completions client (`lean`), against the bare HTTP
// exchange of the same request with undici (body written, answer read and JSON-parsed, the
// event stream split into events), against the fake provider in a process of its own
// (docs/benchmarks/invoke.md, "Issue 39: the provider call").
//
//   npm run build && node scripts/bench/provider-call.mjs [--calls N] [--rounds N] [--concurrency N] [--legs a,b] [--json]
//
// Each leg makes N calls (`--calls`, 2,000), `--concurrency` (8) at a time, once to warm up and
// then in `--rounds` (5) interleaved rounds; the figure is this process's CPU time
// (process.cpuUsage: user + system, every thread) per call, median of the rounds, and the wall
// time per call. The fake provider answers `Echo: hello there` at once (three text fragments,
// streamed without delay). Run it under `node --cpu-prof` for a profile of the same calls.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { request } from 'undici';
import {
  distEntries,
  exitUnlessBuilt,
  freePort,
  fmt,
  httpRequest,
  log,
  median,
  startProcess,
  stopProcess,
  waitFor,
  ROOT,
} from './bench-lib.mjs';

const ENTRIES = distEntries('fake');
const PROVIDERS = 'dist/libs/providers/src/index.js';
const QUESTION = 'hello there';
const EXPECTED = `Echo: ${QUESTION}`;

function parseArgs(argv) {
  const options = { calls: 2_000, rounds: 5, concurrency: 8, legs: null, json: false };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    if (flag === '--json') options.json = true;
    else if (flag === '--legs') options.legs = argv[++index].split(',');
    else if (['--calls', '--rounds', '--concurrency'].includes(flag)) {
      const value = Number(argv[++index]);
      if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} takes a positive integer`);
      options[flag.slice(2)] = value;
    } else throw new Error(`unknown argument ${flag}`);
  }
  return options;
}

/** The request body the provider layer sends for the bench's prompt (what the fake received, checked below). */
function chatBody(streaming) {
  return JSON.stringify({
    model: 'fake-model',
    messages: [{ role: 'user', content: QUESTION }],
    ...(streaming && { stream: true, stream_options: { include_usage: true } }),
  });
}

/** The bare exchange, whole: the request written, the JSON answer read and parsed. */
async function rawComplete(url) {
  const answer = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: chatBody(false),
  });
  const body = await answer.body.json();
  return body.choices[0].message.content;
}

/** The bare exchange, streamed: the event stream split into events, each JSON-parsed. */
async function rawStream(url) {
  const answer = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: chatBody(true),
  });
  let text = '';
  let buffered = '';
  answer.body.setEncoding('utf8');
  for await (const chunk of answer.body) {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const delta = JSON.parse(event.slice(6)).choices[0]?.delta;
      if (delta?.content) text += delta.content;
    }
  }
  return text;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt({ ...ENTRIES, providers: PROVIDERS });
  const providers = createRequire(import.meta.url)(join(ROOT, PROVIDERS));
  const port = await freePort();
  const fake = startProcess('fake-provider', ENTRIES.fake, {
    PATH: process.env.PATH,
    FAKE_PROVIDER_PORT: String(port),
    FAKE_PROVIDER_LATENCY_MS: '0',
    FAKE_PROVIDER_TOKEN_DELAY_MS: '0',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(fake, 'listening', async () => (await httpRequest(port, '/_fake/requests')).status === 200);
    const settings = providers.providerSettingsFromEnv({ FAKE_API_KEY: 'bench', FAKE_BASE_URL: `${url}/v1`, PROVIDER_MAX_RETRIES: 0 });
    const sdk = new providers.ProviderRegistry(settings, { openAIChat: 'sdk' });
    const lean = new providers.ProviderRegistry(settings, { openAIChat: 'lean' });
    const route = {
      modelId: 'fake-chat',
      provider: 'fake',
      providerName: 'Fake',
      providerApi: 'openai-compatible',
      providerModelId: 'fake-model',
    };
    const call = () => ({ messages: [{ role: 'user', content: QUESTION }] });
    const streamed = async (parts) => {
      let text = '';
      for await (const part of parts) if (part.type === 'response') text += part.text;
      return text;
    };
    const legs = {
      'sdk complete': async () => (await providers.complete(sdk, route, call())).response,
      'lean complete': async () => (await providers.complete(lean, route, call())).response,
      'sdk stream': () => streamed(providers.stream(sdk, route, call())),
      'lean stream': () => streamed(providers.stream(lean, route, call())),
      'raw complete': () => rawComplete(url),
      'raw stream': () => rawStream(url),
    };
    const chosen = options.legs ?? Object.keys(legs);
    for (const name of chosen) if (!legs[name]) throw new Error(`unknown leg ${name}; legs: ${Object.keys(legs).join(', ')}`);

    const runLeg = async (name, calls) => {
      let next = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      const worker = async () => {
        while (next < calls) {
          next += 1;
          const text = await legs[name]();
          if (text !== EXPECTED) throw new Error(`${name} answered ${JSON.stringify(text)}, expected ${JSON.stringify(EXPECTED)}`);
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
      const used = process.cpuUsage(cpu);
      return { cpuUsPerCall: (used.user + used.system) / calls, wallUsPerCall: ((performance.now() - started) * 1000) / calls };
    };

    log(`warming up ${chosen.join(', ')}`);
    for (const name of chosen) await runLeg(name, options.calls);
    const rounds = Object.fromEntries(chosen.map((name) => [name, []]));
    for (let round = 0; round < options.rounds; round += 1) {
      // The order rotates, so no leg always follows the same one.
      for (let offset = 0; offset < chosen.length; offset += 1) {
        const name = chosen[(round + offset) % chosen.length];
        rounds[name].push(await runLeg(name, options.calls));
      }
      log(`round ${round + 1} of ${options.rounds} done`);
    }
    const report = Object.fromEntries(
      chosen.map((name) => [
        name,
        {
          cpuUsPerCall: median(rounds[name].map((r) => r.cpuUsPerCall)),
          wallUsPerCall: median(rounds[name].map((r) => r.wallUsPerCall)),
          rounds: rounds[name],
        },
      ]),
    );
    if (options.json) process.stdout.write(`${JSON.stringify({ options, report }, null, 2)}\n`);
    else {
      const lines = [
        `Provider call in process, ${options.calls} calls × ${options.rounds} rounds, ${options.concurrency} at a time (Node ${process.version}).`,
        '',
        '| leg | CPU per call (µs), median | rounds | wall per call (µs) |',
        '| --- | ---: | --- | ---: |',
        ...chosen.map(
          (name) =>
            `| ${name} | ${fmt(report[name].cpuUsPerCall, 0)} | ${rounds[name].map((r) => fmt(r.cpuUsPerCall, 0)).join(', ')} | ${fmt(report[name].wallUsPerCall, 0)} |`,
        ),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
  } finally {
    await stopProcess(fake);
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
