/**
 * A value's JSON text, whatever the value holds: where `JSON.stringify` throws (a BigInt, a
 * circular reference, a `toJSON` that throws) this still answers, with BigInts as strings and
 * repeated objects as "[Circular]". For dead letters and log lines, which must never fail to be
 * written because of what they describe.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    const seen = new WeakSet<object>();
    try {
      return (
        JSON.stringify(value, (_key, inner: unknown) => {
          if (typeof inner === 'bigint') return inner.toString();
          if (typeof inner === 'object' && inner !== null) {
            if (seen.has(inner)) return '[Circular]';
            seen.add(inner);
          }
          return inner;
        }) ?? 'null'
      );
    } catch (error) {
      return JSON.stringify(`[unserializable: ${error instanceof Error ? error.message : String(error)}]`);
    }
  }
}

/** Text cut to `max` characters, marked when cut. */
export function cutText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
