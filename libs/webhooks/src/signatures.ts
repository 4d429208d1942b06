import { createHmac } from 'node:crypto';
import { standardWebhooksKey } from './secrets';

export interface CallbackSignatureInput {
  /** `webhook-id`: the same for every attempt of one delivery. */
  id: string;
  /** Seconds since the epoch, of this attempt. */
  timestamp: number;
  /** The exact bytes sent as the body. */
  body: string;
  /** Every secret in force: the current one first, then one still inside its rotation overlap. */
  secrets: readonly string[];
}

export const SIGNATURE_HEADERS = {
  service: 'x-service-signature',
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * decisions: two independent signatures keyed with the webhook secret. `X-Service-Signature`
 * is `sha256=<hex HMAC of the body>` keyed with the secret's UTF-8 string; the Standard
 * Webhooks signature is `v1,<base64 HMAC of "{id}.{timestamp}.{body}">` keyed with the
 * bytes after `whsec_`. During a rotation both secrets sign: Standard Webhooks lists
 * signatures separated by spaces, and X-Service-Signature lists them separated by ", ".
 */
export function signCallback({ id, timestamp, body, secrets }: CallbackSignatureInput): Record<string, string> {
  if (secrets.length === 0) throw new Error('A callback needs at least one secret to sign with');
  const service = secrets.map((secret) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`);
  const standard = secrets.map(
    (secret) => `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`,
  );
  return {
    [SIGNATURE_HEADERS.service]: service.join(', '),
    [SIGNATURE_HEADERS.id]: id,
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: standard.join(' '),
  };
}
