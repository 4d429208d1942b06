import { RE2 } from 're2-wasm';

/*
 * RE2 instead of JavaScript's backtracking RegExp for a response format's `pattern` and
 * `patternProperties` and the experiments' `regex` evaluator: a workspace's pattern such as
 * `^(a+)+$` must not be able to hold a shared service's event loop (RE2 matches in linear time).
 *
 * re2-wasm keeps what it allocates in a fixed 16 MiB WebAssembly heap that the garbage collector
 * never frees: a process that drops compiled patterns without freeing them ends with every later
 * compilation (every structured-output run's too) failing for good. So every pattern compiled
 * here is owned by something that frees it: one use (withRe2Pattern) or a set of patterns
 * (Re2Patterns, one per compiled response-format validator).
 */

/** re2-wasm's C++ objects, freed by `delete`. */
interface WasmObject {
  delete(): void;
}

/**
 * What re2-wasm's constructor allocates on the heap and never frees itself: the compiled pattern
 * (assigned to `wrapper` before the pattern is checked, then left behind when the constructor
 * throws) and the map of group names (and its list of keys) it reads once. Caught on the way in
 * through the `wrapper` setter below; compilation is synchronous, so one list serves.
 */
let allocating: WasmObject[] = [];

function tracked<T extends object>(object: T): T {
  allocating.push(object as unknown as WasmObject);
  return object;
}

class OwnedRE2 extends RE2 {}

Object.defineProperty(OwnedRE2.prototype, 'wrapper', {
  set(this: OwnedRE2, wrapper: { capturingGroupNames(): { keys(): object } }) {
    tracked(wrapper);
    const groupNames = wrapper.capturingGroupNames.bind(wrapper);
    wrapper.capturingGroupNames = () => {
      const names = tracked(groupNames());
      const keys = names.keys.bind(names);
      names.keys = () => tracked(keys());
      return names;
    };
    Object.defineProperty(this, 'wrapper', { value: wrapper, writable: true, configurable: true, enumerable: true });
  },
});

/** The pattern compiled in RE2 (unicode always, as RE2 requires); the caller frees it with freeRe2. Throws a SyntaxError, having freed what it allocated, for a pattern RE2 refuses. */
function compileRe2(pattern: string, flags: string): RE2 {
  allocating = [];
  try {
    const compiled = new OwnedRE2(pattern, flags.includes('u') ? flags : `${flags}u`);
    // The group names were copied into the RE2 object; only its compiled pattern is kept.
    for (const object of allocating) if (object !== wasmPattern(compiled)) object.delete();
    return compiled;
  } catch (error) {
    for (const object of allocating) object.delete();
    throw error;
  } finally {
    allocating = [];
  }
}

function wasmPattern(compiled: RE2): WasmObject {
  return (compiled as unknown as { wrapper: WasmObject }).wrapper;
}

function freeRe2(compiled: RE2): void {
  wasmPattern(compiled).delete();
}

/** What `use` answered, or why the pattern does not compile (the parser's words). */
export type Re2Outcome<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `use` with the pattern compiled in RE2, which is freed afterwards. */
export function withRe2Pattern<T>(pattern: string, flags: string, use: (compiled: RE2) => T): Re2Outcome<T> {
  let compiled: RE2;
  try {
    compiled = compileRe2(pattern, flags);
  } catch (error) {
    return { ok: false, problem: (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 300) };
  }
  try {
    return { ok: true, value: use(compiled) };
  } finally {
    freeRe2(compiled);
  }
}

/** Why a pattern does not compile in RE2 (its parser's words, in English), or undefined when it does. */
export function re2PatternProblem(pattern: string, flags = ''): string | undefined {
  const outcome = withRe2Pattern(pattern, flags, () => undefined);
  return outcome.ok ? undefined : outcome.problem;
}

/**
 * The patterns one owner compiles (Ajv's regular-expression engine for one validator), freed
 * together when the owner is dropped. A pattern asked for twice is compiled once.
 */
export class Re2Patterns {
  private readonly compiled = new Map<string, RE2>();

  /** Ajv's `code.regExp`. Ajv reads `code` only when it writes standalone validator code, which Waggle does not. */
  readonly engine = Object.assign((pattern: string, flags: string): RE2 => this.compile(pattern, flags), { code: 're2-wasm' });

  compile(pattern: string, flags: string): RE2 {
    const key = `${flags}/${pattern}`;
    let compiled = this.compiled.get(key);
    if (!compiled) {
      compiled = compileRe2(pattern, flags);
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  /** Frees every pattern compiled here: whatever still holds one must not use it afterwards. */
  free(): void {
    for (const compiled of this.compiled.values()) freeRe2(compiled);
    this.compiled.clear();
  }
}
