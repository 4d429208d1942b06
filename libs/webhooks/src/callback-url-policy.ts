import { isIP } from 'node:net';
import { errorMessage, nestedMessage, type NestedMessage } from '@waggle/errors';
import ipaddr from 'ipaddr.js';

export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * The guard's refusal to send a callback: `refusal` is the reason as a message id (rendered
 * in the reader's language), `reason` its English text; both are safe to show to the caller.
 */
export class CallbackRefusedError extends Error {
  readonly reason: string;

  constructor(readonly refusal: NestedMessage) {
    const reason = errorMessage(refusal, 'en');
    super(reason);
    this.name = 'CallbackRefusedError';
    this.reason = reason;
  }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

// Everything IANA has handed out for global IPv6 unicast lives in 2000::/3; ipaddr.js calls the
// rest (e.g. the deprecated IPv4-compatible ::a.b.c.d) 'unicast' too, so it is refused here.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function rangeOf(address: Address): string | null {
  if (address instanceof ipaddr.IPv4) {
    const range = address.range();
    return range === 'unicast' ? null : range;
  }
  const range = address.range();
  if (range === 'ipv4Mapped') {
    // The socket reaches the embedded IPv4 address, so that is what is judged.
    const embedded = rangeOf(address.toIPv4Address());
    return embedded === null ? null : `ipv4Mapped ${embedded}`;
  }
  // Conservative: 6to4, Teredo, NAT64 and the like are refused whatever they embed, since
  // where they finally lead depends on relays outside our view.
  if (range !== 'unicast') return range;
  return address.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
}

/** null for a public unicast address; otherwise the range's name, e.g. 'loopback', 'private', 'linkLocal', 'uniqueLocal', 'ipv4Mapped loopback'. */
export function nonPublicRange(address: string): string | null {
  const bare = unbracket(address);
  // Fail closed on anything that is not a plain IP literal (ipaddr.js alone also takes e.g. "0x7f.1").
  if (isIP(bare) === 0) return 'invalid';
  try {
    return rangeOf(ipaddr.parse(bare));
  } catch {
    return 'invalid';
  }
}

const RANGE_LABELS: Record<string, NestedMessage> = {
  loopback: { detail: 'range_loopback' },
  private: { detail: 'range_private' },
  linkLocal: { detail: 'range_link_local' },
  uniqueLocal: { detail: 'range_unique_local' },
  unspecified: { detail: 'range_unspecified' },
  carrierGradeNat: { detail: 'range_carrier_grade_nat' },
  multicast: { detail: 'range_multicast' },
  broadcast: { detail: 'range_broadcast' },
  reserved: { detail: 'range_reserved' },
  invalid: { detail: 'range_invalid' },
};

/** "a loopback", "an IPv4-mapped loopback", "a 6to4": for reasons shown to people, in their language. */
export function describeRangeMessage(range: string): NestedMessage {
  const [first, embedded] = range.split(' ');
  if (first === 'ipv4Mapped' && embedded !== undefined) {
    return nestedMessage({ detail: 'address_range_ipv4_mapped', params: { label: RANGE_LABELS[embedded] ?? embedded } });
  }
  const label = RANGE_LABELS[first] ?? first;
  // The article goes with the English label (a range ipaddr.js names that is not listed stays as it is).
  const english = typeof label === 'string' ? label : errorMessage(label, 'en');
  const article = /^[aeiou]/i.test(english) && !/^uni/i.test(english) ? 'address_range_an' : 'address_range_a';
  return nestedMessage({ detail: article, params: { label } });
}

/** "a loopback", "an IPv4-mapped loopback", "a 6to4", in English (for logs). */
export function describeRange(range: string): string {
  return errorMessage(describeRangeMessage(range), 'en');
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function normaliseHostName(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * The words a policy's reasons and configuration errors use, so the same guard can judge
 * callback URLs and, say, attachment URLs and name each as the caller knows it.
 */
export interface UrlPolicyWording {
  /** What the URL is called, e.g. `callback_url`: a message id, so it reads in the caller's language. */
  url: UrlWord;
  /** What its host is called, e.g. `callback host`. */
  host: HostWord;
  /** The setting the allowlist comes from, named when an entry is invalid. */
  setting: string;
}

export type UrlWord = 'url_word_callback' | 'url_word_attachment' | 'url_word_page' | 'url_word_plain';
export type HostWord = 'host_word_callback' | 'host_word_attachment' | 'host_word_page' | 'host_word_plain';

export const CALLBACK_URL_WORDING: UrlPolicyWording = {
  url: 'url_word_callback',
  host: 'host_word_callback',
  setting: 'CALLBACK_URL_ALLOWLIST',
};

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

export class CallbackUrlPolicy {
  private readonly hostNames = new Set<string>();
  private readonly addresses: Address[] = [];
  private readonly ranges: [Address, number][] = [];

  /** Parses CALLBACK_URL_ALLOWLIST (or the setting `wording` names): comma-separated host names, IP addresses and CIDR ranges. */
  constructor(
    allowlist: string,
    readonly wording: UrlPolicyWording = CALLBACK_URL_WORDING,
  ) {
    for (const raw of allowlist.split(',')) {
      const entry = raw.trim();
      if (entry === '') continue;
      this.addEntry(entry);
    }
  }

  static fromEnv(env: { CALLBACK_URL_ALLOWLIST: string }): CallbackUrlPolicy {
    return new CallbackUrlPolicy(env.CALLBACK_URL_ALLOWLIST ?? '');
  }

  /** Checks that need no DNS; null when acceptable, otherwise a short reason, in English. */
  check(url: string): string | null {
    const refusal = this.refusal(url);
    return refusal === null ? null : errorMessage(refusal, 'en');
  }

  /** Checks that need no DNS; null when acceptable, otherwise the reason as a message id (url_refused's `%{reason}`). */
  refusal(url: string): NestedMessage | null {
    const field: NestedMessage = { detail: this.wording.url };
    if (url.length > MAX_CALLBACK_URL_LENGTH)
      return nestedMessage({ detail: 'url_too_long', params: { field, max: MAX_CALLBACK_URL_LENGTH } });
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return nestedMessage({ detail: 'url_not_absolute', params: { field } });
    }
    const https = nestedMessage({ detail: 'url_must_use_https', params: { field } });
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return https;
    if (parsed.username !== '' || parsed.password !== '') return nestedMessage({ detail: 'url_has_credentials', params: { field } });
    if (parsed.hostname === '') return nestedMessage({ detail: 'url_no_host', params: { field } });
    const allowlisted = this.isAllowlistedHost(parsed.hostname);
    if (parsed.protocol === 'http:' && !allowlisted) return https;
    if (allowlisted) return null;
    const literal = unbracket(parsed.hostname);
    if (isIP(literal) !== 0) {
      const range = nonPublicRange(literal);
      if (range !== null) return nestedMessage({ detail: 'url_non_public', params: { field, range: describeRangeMessage(range) } });
    }
    return null;
  }

  /** `hostname` as in URL.hostname; IPv6 literals may come bracketed. */
  isAllowlistedHost(hostname: string): boolean {
    const host = unbracket(hostname);
    if (isIP(host) !== 0) {
      let address: Address;
      try {
        address = ipaddr.parse(host);
      } catch {
        return false;
      }
      // Exact address match only: ::ffff:127.0.0.1 is a different literal from 127.0.0.1.
      if (
        this.addresses.some((allowed) => allowed.kind() === address.kind() && allowed.toNormalizedString() === address.toNormalizedString())
      ) {
        return true;
      }
      return this.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
    }
    return this.hostNames.has(normaliseHostName(host));
  }

  private addEntry(entry: string): void {
    if (entry.includes('/')) {
      const valid = entry.includes(':') ? ipaddr.IPv6.isValidCIDR(entry) : ipaddr.IPv4.isValidCIDRFourPartDecimal(entry);
      if (!valid) throw new Error(`${this.wording.setting}: "${entry}" is not a valid CIDR range`);
      this.ranges.push(ipaddr.parseCIDR(entry));
      return;
    }
    const literal = unbracket(entry);
    if (isIP(literal) !== 0) {
      this.addresses.push(ipaddr.parse(literal));
      return;
    }
    // Run names through the URL parser so they compare equal to URL.hostname (lower case,
    // punycode). An ASCII name it rewrites (e.g. "127.1" into an address, "host:80" into
    // "host") is not a plain host name.
    let name: string;
    try {
      name = normaliseHostName(new URL(`http://${entry}/`).hostname);
    } catch {
      throw new Error(`${this.wording.setting}: "${entry}" is not a host name, IP address or CIDR range`);
    }
    const ascii = [...entry].every((char) => char.charCodeAt(0) < 0x80);
    if (!HOST_NAME.test(name) || isIP(name) !== 0 || (ascii && normaliseHostName(entry) !== name)) {
      throw new Error(`${this.wording.setting}: "${entry}" is not a host name, IP address or CIDR range`);
    }
    this.hostNames.add(name);
  }
}
