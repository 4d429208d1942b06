import { errorMessage } from '@waggle/errors';
import { CallbackRefusedError, CallbackUrlPolicy, describeRange, describeRangeMessage, nonPublicRange } from './callback-url-policy';

describe('CallbackUrlPolicy.check without an allowlist', () => {
  const policy = new CallbackUrlPolicy('');

  it.each([
    ['http://127.0.0.1:9000/x', 'callback_url must use https'],
    ['http://example.com/hook', 'callback_url must use https'],
    ['https://127.0.0.1/x', 'callback_url points to a loopback address'],
    ['https://10.0.0.1/', 'callback_url points to a private address'],
    ['https://192.168.1.1/', 'callback_url points to a private address'],
    ['https://172.16.0.1/', 'callback_url points to a private address'],
    ['https://169.254.169.254/latest/meta-data', 'callback_url points to a link-local address'],
    ['https://[::1]/', 'callback_url points to a loopback address'],
    ['https://[::ffff:127.0.0.1]/', 'callback_url points to an IPv4-mapped loopback address'],
    ['https://[::ffff:7f00:1]/', 'callback_url points to an IPv4-mapped loopback address'],
    ['https://[::ffff:10.0.0.1]/', 'callback_url points to an IPv4-mapped private address'],
    ['https://[fc00::1]/', 'callback_url points to a unique-local address'],
    ['https://[fe80::1]/', 'callback_url points to a link-local address'],
    ['https://0.0.0.0/', 'callback_url points to an unspecified address'],
    ['https://[::]/', 'callback_url points to an unspecified address'],
    ['https://100.64.0.1/', 'callback_url points to a carrier-grade NAT address'],
    ['https://224.0.0.1/', 'callback_url points to a multicast address'],
    ['https://255.255.255.255/', 'callback_url points to a broadcast address'],
    ['https://192.0.2.10/', 'callback_url points to a reserved address'],
    ['https://[2001:db8::1]/', 'callback_url points to a reserved address'],
    ['https://[2002:7f00:1::1]/', 'callback_url points to a 6to4 address'],
    ['https://[64:ff9b::7f00:1]/', 'callback_url points to a rfc6052 address'],
    ['https://[::7f00:1]/', 'callback_url points to a reserved address'],
    // The URL parser turns these spellings into 127.0.0.1; the check must see through them.
    ['https://2130706433/', 'callback_url points to a loopback address'],
    ['https://0x7f.1/', 'callback_url points to a loopback address'],
    ['ftp://example.com/', 'callback_url must use https'],
    ['file:///etc/passwd', 'callback_url must use https'],
    ['not a url', 'callback_url must be an absolute URL'],
    ['/relative/path', 'callback_url must be an absolute URL'],
    ['https://user:pw@example.com/', 'callback_url must not contain credentials'],
    ['https://user@example.com/', 'callback_url must not contain credentials'],
    [`https://example.com/${'a'.repeat(2048)}`, 'callback_url must be at most 2048 characters'],
  ])('refuses %s', (url, reason) => {
    expect(policy.check(url)).toBe(reason);
  });

  it.each([
    'https://example.com/hook',
    'https://93.184.216.34/',
    'https://[2606:4700::1111]/',
    'https://[::ffff:93.184.216.34]/',
    'https://example.com:8443/a?b=c',
  ])('accepts %s', (url) => {
    expect(policy.check(url)).toBeNull();
  });

  it('accepts a URL of exactly 2048 characters', () => {
    const prefix = 'https://example.com/';
    expect(policy.check(prefix + 'a'.repeat(2048 - prefix.length))).toBeNull();
  });

  it('does not resolve names: a name for a local address passes here and is caught at connect time', () => {
    expect(policy.check('https://localhost:8443/')).toBeNull();
  });
});

describe('CallbackUrlPolicy with an allowlist', () => {
  const policy = new CallbackUrlPolicy('127.0.0.1, ::1 ,localhost');

  it.each([
    'http://127.0.0.1:9000/x',
    'http://[::1]:9000/',
    'http://localhost:9000/',
    'http://LOCALHOST:9000/',
    'http://localhost.:9000/',
    'https://127.0.0.1/',
  ])('accepts %s', (url) => {
    expect(policy.check(url)).toBeNull();
  });

  it.each([
    ['http://127.0.0.2/', 'callback_url must use https'],
    ['https://127.0.0.2/', 'callback_url points to a loopback address'],
    // Exact literal match only: the mapped spelling of an allowlisted address is another host.
    ['https://[::ffff:127.0.0.1]/', 'callback_url points to an IPv4-mapped loopback address'],
    ['http://sub.localhost/', 'callback_url must use https'],
    ['http://user:pw@localhost/', 'callback_url must not contain credentials'],
  ])('still refuses %s', (url, reason) => {
    expect(policy.check(url)).toBe(reason);
  });

  it('accepts literal IPs inside an allowlisted CIDR range', () => {
    const cidr = new CallbackUrlPolicy('10.0.0.0/8,fd00::/8');
    expect(cidr.check('http://10.1.2.3/')).toBeNull();
    expect(cidr.check('http://[fd12::3]/')).toBeNull();
    expect(cidr.check('http://11.1.2.3/')).toBe('callback_url must use https');
    expect(cidr.check('https://192.168.0.1/')).toBe('callback_url points to a private address');
  });

  it('matches host names exactly, case-insensitively, ignoring a trailing dot', () => {
    const named = new CallbackUrlPolicy('Hooks.Internal.');
    expect(named.isAllowlistedHost('hooks.internal')).toBe(true);
    expect(named.isAllowlistedHost('HOOKS.internal.')).toBe(true);
    expect(named.isAllowlistedHost('x.hooks.internal')).toBe(false);
    expect(named.isAllowlistedHost('hooks.internal.evil.com')).toBe(false);
  });

  it('handles bracketed and unbracketed IPv6 host names', () => {
    expect(policy.isAllowlistedHost('[::1]')).toBe(true);
    expect(policy.isAllowlistedHost('::1')).toBe(true);
    expect(policy.isAllowlistedHost('[0:0:0:0:0:0:0:1]')).toBe(true);
    expect(policy.isAllowlistedHost('[::2]')).toBe(false);
  });

  it('does not let a host name entry allow the address it resolves to, nor the other way round', () => {
    expect(new CallbackUrlPolicy('127.0.0.1').isAllowlistedHost('localhost')).toBe(false);
    expect(new CallbackUrlPolicy('localhost').isAllowlistedHost('127.0.0.1')).toBe(false);
  });

  it('reads CALLBACK_URL_ALLOWLIST from the environment', () => {
    expect(CallbackUrlPolicy.fromEnv({ CALLBACK_URL_ALLOWLIST: '' }).isAllowlistedHost('localhost')).toBe(false);
    expect(CallbackUrlPolicy.fromEnv({ CALLBACK_URL_ALLOWLIST: 'localhost' }).isAllowlistedHost('localhost')).toBe(true);
  });

  it.each([
    '10.0.0.0/33',
    '10.0.0/8',
    '::1/129',
    'http://localhost',
    'localhost:8080',
    '*.example.com',
    'exa mple.com',
    '127.1',
    '300.1.2.3',
    'a..b',
    '-bad.example',
  ])('throws naming the bad entry %s', (entry) => {
    expect(() => new CallbackUrlPolicy(`localhost,${entry}`)).toThrow(entry);
  });

  it('ignores empty entries and whitespace', () => {
    expect(() => new CallbackUrlPolicy(' , ,')).not.toThrow();
  });
});

describe('CallbackUrlPolicy with its own wording', () => {
  const wording = { url: 'url_word_attachment', host: 'host_word_attachment', setting: 'ATTACHMENT_URL_ALLOWLIST' } as const;

  it('names the URL as its caller knows it', () => {
    const policy = new CallbackUrlPolicy('', wording);
    expect(policy.check('http://example.com/a.pdf')).toBe('attachment URL must use https');
    expect(policy.check('https://10.0.0.1/a.pdf')).toBe('attachment URL points to a private address');
    expect(policy.check('https://user:pw@example.com/a.pdf')).toBe('attachment URL must not contain credentials');
  });

  it('gives its reasons as message ids, read in Spanish too', () => {
    const policy = new CallbackUrlPolicy('', wording);
    const spanish = (url: string) => {
      const refusal = policy.refusal(url);
      return refusal && errorMessage(refusal, 'es');
    };
    expect(spanish('http://example.com/a.pdf')).toBe('la URL del adjunto debe usar https');
    expect(spanish('https://10.0.0.1/a.pdf')).toBe('la URL del adjunto apunta a una dirección privada');
    expect(spanish('https://[::ffff:127.0.0.1]/a.pdf')).toBe('la URL del adjunto apunta a una dirección de bucle local mapeada en IPv4');
    expect(spanish('https://user:pw@example.com/a.pdf')).toBe('la URL del adjunto no debe contener credenciales');
    expect(spanish('/a.pdf')).toBe('la URL del adjunto debe ser una URL absoluta');
    expect(spanish('https://example.com/a.pdf')).toBeNull();
    expect(errorMessage(describeRangeMessage('6to4'), 'es')).toBe('6to4');
    expect(describeRange('6to4')).toBe('a 6to4');
    expect(describeRange('unspecified')).toBe('an unspecified');
  });

  it('names its setting when an allowlist entry is bad', () => {
    expect(() => new CallbackUrlPolicy('localhost:8080', wording)).toThrow('ATTACHMENT_URL_ALLOWLIST: "localhost:8080" is not a host name');
  });
});

describe('nonPublicRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'ipv4Mapped loopback'],
    ['::ffff:169.254.169.254', 'ipv4Mapped linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['2001:db8::1', 'reserved'],
    ['not an address', 'invalid'],
    ['0x7f.1', 'invalid'],
  ])('%s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '[2606:4700::1111]'])('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});

describe('CallbackRefusedError', () => {
  it('carries its reason and name', () => {
    const error = new CallbackRefusedError({
      detail: 'host_non_public_address',
      params: {
        host: { detail: 'host_word_callback' },
        range: { detail: 'address_range_a', params: { label: { detail: 'range_loopback' } } },
        address: '127.0.0.1',
      },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CallbackRefusedError');
    expect(error.reason).toBe('callback host resolves to a loopback address (127.0.0.1)');
    expect(error.message).toBe(error.reason);
  });
});
