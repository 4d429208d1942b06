import { WaggleException } from '@waggle/errors';
import { ZERO_USAGE, type ModelRun, type StreamPart } from '@waggle/providers';
import { streamedTurns } from './model-turns';
import type { TurnListener } from './tool-loop';

/** A model chain whose stream says these parts; the fallback answers from the `switchAt`th part on. */
function models(parts: StreamPart[], switchAt = Infinity): ModelRun {
  const chain = {
    route: { modelId: 'primary', provider: 'openai' },
    async *stream() {
      for (const [index, part] of parts.entries()) {
        if (index === switchAt) chain.route = { modelId: 'fallback', provider: 'anthropic' };
        yield part;
      }
    },
  };
  return chain as unknown as ModelRun;
}

function recorder(): { events: string[]; listener: TurnListener } {
  const events: string[] = [];
  return {
    events,
    listener: {
      fragment: (kind, text, model) => events.push(`${kind}:${text}@${model}`),
      textDone: (kind, model) => events.push(`${kind} done@${model}`),
    },
  };
}

const finish: StreamPart = {
  type: 'finish',
  usage: ZERO_USAGE,
  cost: { picoUsd: 0, priceVersion: null, credentials: 'hosted' },
  stopReason: 'completed',
  responseMessages: [],
};

describe('streamedTurns', () => {
  it('streams each text kind under the model answering it, closing a kind before the next one, a tool call or the end', async () => {
    const { events, listener } = recorder();
    const toolCall = { toolCallId: 'c1', toolName: 'read_file', input: {} };
    const outcome = await streamedTurns(
      models(
        [
          { type: 'reasoning', text: 'Think' },
          { type: 'reasoning', text: 'ing' },
          { type: 'response', text: 'Answer' },
          { type: 'tool-call', toolCall },
          { type: 'response', text: '!' },
          finish,
        ],
        2,
      ),
      listener,
    )({ messages: [] });
    expect(events).toEqual([
      'reasoning:Think@primary',
      'reasoning:ing@primary',
      'reasoning done@fallback',
      'response:Answer@fallback',
      'response done@fallback',
      'response:!@fallback',
      'response done@fallback',
    ]);
    expect(outcome).toMatchObject({ reasoning: 'Thinking', response: 'Answer!', toolCalls: [toolCall], stopReason: 'completed' });
  });

  it('is a provider error when the stream ends without finishing', async () => {
    const { listener } = recorder();
    const failure = await streamedTurns(
      models([{ type: 'response', text: 'cut' }]),
      listener,
    )({ messages: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WaggleException);
    expect(failure).toMatchObject({ code: 'provider_error' });
  });
});
