import { errorMessage } from '@waggle/errors';
import { CallbackRefusedError, CallbackUrlPolicy } from './callback-url-policy';
import { checkResolvedAddresses, refusalOf } from './guarded-dispatcher';

describe('checkResolvedAddresses', () => {
  const strict = new CallbackUrlPolicy('');

  it('accepts a host whose every address is public', () => {
    expect(checkResolvedAddresses('example.com', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'], strict)).toBeNull();
  });

  it.each([
    [['127.0.0.1'], 'callback host resolves to a loopback address (127.0.0.1)'],
    [['93.184.216.34', '10.0.0.5'], 'callback host resolves to a private address (10.0.0.5)'],
    [['169.254.169.254'], 'callback host resolves to a link-local address (169.254.169.254)'],
    [['::ffff:127.0.0.1'], 'callback host resolves to an IPv4-mapped loopback address (::ffff:127.0.0.1)'],
    [['2606:4700::1111', 'fd00::1'], 'callback host resolves to a unique-local address (fd00::1)'],
    [[], 'callback host did not resolve to any address'],
  ])('refuses a name resolving to %j', (addresses, reason) => {
    const refusal = checkResolvedAddresses('hooks.example.com', addresses, strict);
    expect(refusal).toBeInstanceOf(CallbackRefusedError);
    expect(refusal?.reason).toBe(reason);
  });

  it('words the refusal of a literal address as such', () => {
    expect(checkResolvedAddresses('::1', ['::1'], strict)?.reason).toBe('callback_url points to a loopback address (::1)');
  });

  it('lets an allowlisted host reach any address', () => {
    const policy = new CallbackUrlPolicy('localhost,10.0.0.0/8');
    expect(checkResolvedAddresses('localhost', ['127.0.0.1', '::1'], policy)).toBeNull();
    expect(checkResolvedAddresses('10.1.2.3', ['10.1.2.3'], policy)).toBeNull();
  });

  it("words the refusal with the policy's wording", () => {
    const policy = new CallbackUrlPolicy('', {
      url: 'url_word_attachment',
      host: 'host_word_attachment',
      setting: 'ATTACHMENT_URL_ALLOWLIST',
    });
    expect(checkResolvedAddresses('files.example.com', ['10.0.0.5'], policy)?.reason).toBe(
      'attachment host resolves to a private address (10.0.0.5)',
    );
    const spanish = (refusal: CallbackRefusedError | null) => refusal && errorMessage(refusal.refusal, 'es');
    expect(spanish(checkResolvedAddresses('files.example.com', ['10.0.0.5'], policy))).toBe(
      'el host del adjunto se resuelve en una dirección privada (10.0.0.5)',
    );
    expect(spanish(checkResolvedAddresses('files.example.com', [], policy))).toBe(
      'el host del adjunto no se resolvió en ninguna dirección',
    );
    expect(checkResolvedAddresses('127.0.0.1', ['127.0.0.1'], policy)?.reason).toBe(
      'attachment URL points to a loopback address (127.0.0.1)',
    );
  });

  it('judges a name that is not allowlisted even when the address it resolves to is', () => {
    const policy = new CallbackUrlPolicy('127.0.0.1');
    expect(checkResolvedAddresses('localhost', ['127.0.0.1'], policy)?.reason).toBe(
      'callback host resolves to a loopback address (127.0.0.1)',
    );
  });
});

describe('refusalOf', () => {
  const refusal = new CallbackRefusedError({ detail: 'host_unresolved', params: { host: { detail: 'host_word_callback' } } });

  it('finds the refusal itself, behind causes and inside aggregate errors', () => {
    expect(refusalOf(refusal)).toBe(refusal);
    expect(refusalOf(new Error('outer', { cause: new Error('middle', { cause: refusal }) }))).toBe(refusal);
    expect(refusalOf(new AggregateError([new Error('other'), refusal]))).toBe(refusal);
  });

  it('is null for other errors and non-errors', () => {
    expect(refusalOf(new Error('ECONNREFUSED'))).toBeNull();
    expect(refusalOf('refused')).toBeNull();
    expect(refusalOf(undefined)).toBeNull();
  });

  it('survives cause cycles', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as Error & { cause?: unknown }).cause = b;
    expect(refusalOf(a)).toBeNull();
  });
});
