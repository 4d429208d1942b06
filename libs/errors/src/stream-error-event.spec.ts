import { localizeStreamEvent, streamErrorEvent } from './stream-error-event';
import { WaggleException } from './waggle.exception';

describe('a run stream error event', () => {
  const failure = new WaggleException('provider_error', {
    detail: 'provider_request_failed',
    params: { provider: 'Anthropic', reason: { detail: 'provider_reason_stream_ended' } },
  });
  // As it crosses NATS.
  const event = JSON.parse(JSON.stringify(streamErrorEvent('req_1', failure, 'anthropic'))) as unknown;

  it('reaches an English client byte for byte as before, without the failure it carried', () => {
    expect(JSON.stringify(localizeStreamEvent(event, 'en'))).toBe(
      JSON.stringify({
        request_id: 'req_1',
        type: 'error',
        error: 'Anthropic request failed: the stream ended before the answer finished',
        message: 'Anthropic request failed: the stream ended before the answer finished',
        error_code: 'provider_error',
        error_type: 'provider',
        status_code: 502,
        provider: 'anthropic',
      }),
    );
  });

  it("reaches a Spanish client in Spanish, the provider's failure reason too", () => {
    const spanish = 'La solicitud a Anthropic falló: la transmisión terminó antes de completarse la respuesta';
    expect(localizeStreamEvent(event, 'es')).toEqual({
      request_id: 'req_1',
      type: 'error',
      error: spanish,
      message: spanish,
      error_code: 'provider_error',
      error_type: 'provider',
      status_code: 502,
      provider: 'anthropic',
    });
  });

  it('leaves any other event as it is', () => {
    const delta = { request_id: 'req_1', type: 'delta', failure: 'not ours' };
    expect(localizeStreamEvent(delta, 'es')).toBe(delta);
  });
});
