import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from './secrets';
import { signCallback } from './signatures';

describe('signCallback', () => {
  const body = JSON.stringify({
    event_type: 'prompt.completed',
    request_id: 'req_0123456789abcdef0123456789abcdef',
    data: { response: 'hé ✓' },
  });
  const timestamp = Math.floor(Date.now() / 1000);

  it('signs the raw body with a plain HMAC keyed by the secret string', () => {
    const secret = generateWebhookSecret();
    const headers = signCallback({ id: 'msg_1', timestamp, body, secrets: [secret] });
    expect(headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`);
  });

  it('produces Standard Webhooks headers the standardwebhooks package verifies', () => {
    const secret = generateWebhookSecret();
    const headers = signCallback({ id: 'msg_2', timestamp, body, secrets: [secret] });
    expect(headers['webhook-id']).toBe('msg_2');
    expect(headers['webhook-timestamp']).toBe(String(timestamp));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification with another secret or an altered body', () => {
    const headers = signCallback({ id: 'msg_3', timestamp, body, secrets: [generateWebhookSecret()] });
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('signs with every secret in force during a rotation, each verifying on its own', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const headers = signCallback({ id: 'msg_4', timestamp, body, secrets: [current, previous] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(headers['x-service-signature'].split(', ')).toContain(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    }
  });

  it('refuses to sign without a secret', () => {
    expect(() => signCallback({ id: 'msg_5', timestamp, body, secrets: [] })).toThrow();
  });
});
