import { isDeepStrictEqual } from 'node:util';
import type { ConditionClause, ConditionOp, ConditionWhen } from './workflow-definition';
import { renderValue, type WorkflowScope } from './workflow-template';

/** A number, or a string that is one (templated text renders numbers as strings: "{{ count | plus: 1 }}"). */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    return Number.isFinite(number) ? number : undefined;
  }
  return undefined;
}

/**
 * Equal: a number and a numeric string compare as numbers (`3` eq `"3"`, `"3.0"`); otherwise
 * values compare by value, arrays and objects deeply. `null` equals only `null` (a missing
 * value is `null`).
 */
function equal(left: unknown, right: unknown): boolean {
  if (typeof left === 'number' || typeof right === 'number') {
    const [a, b] = [asNumber(left), asNumber(right)];
    if (a !== undefined && b !== undefined) return a === b;
  }
  return isDeepStrictEqual(left ?? null, right ?? null);
}

/** Ordering: numbers (or numeric strings) numerically, other strings by code point; anything else is not ordered (false). */
function compare(left: unknown, right: unknown): number | undefined {
  const [a, b] = [asNumber(left), asNumber(right)];
  if (a !== undefined && b !== undefined) return a - b;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return undefined;
}

function ordered(holds: (order: number) => boolean): (left: unknown, right: unknown) => boolean {
  return (left, right) => {
    const order = compare(left, right);
    return order !== undefined && holds(order);
  };
}

/** Empty: `null`, a string of only whitespace, `[]`, `{}`. Numbers and booleans are never empty. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/** Contains: a substring of a string (right as text), an element of an array (by `eq`), a key of an object. Nothing else contains anything. */
function contains(left: unknown, right: unknown): boolean {
  if (typeof left === 'string')
    return right !== null && right !== undefined && left.includes(typeof right === 'string' ? right : JSON.stringify(right));
  if (Array.isArray(left)) return left.some((element) => equal(element, right));
  if (left !== null && typeof left === 'object')
    return (typeof right === 'string' || typeof right === 'number') && Object.prototype.hasOwnProperty.call(left, String(right));
  return false;
}

/** starts_with / ends_with: strings (numbers as their text); anything else is false. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

const OPS: Record<ConditionOp, (left: unknown, right: unknown) => boolean> = {
  eq: equal,
  neq: (left, right) => !equal(left, right),
  gt: ordered((order) => order > 0),
  gte: ordered((order) => order >= 0),
  lt: ordered((order) => order < 0),
  lte: ordered((order) => order <= 0),
  contains,
  not_contains: (left, right) => !contains(left, right),
  is_empty: isEmpty,
  is_not_empty: (left) => !isEmpty(left),
  starts_with: (left, right) => {
    const [a, b] = [text(left), text(right)];
    return a !== undefined && b !== undefined && a.startsWith(b);
  },
  ends_with: (left, right) => {
    const [a, b] = [text(left), text(right)];
    return a !== undefined && b !== undefined && a.endsWith(b);
  },
};

/** One clause, its `left` and `right` rendered first (an exact reference keeps its native value). */
export function evaluateClause(clause: ConditionClause, scope: WorkflowScope): boolean {
  const left = renderValue(clause.left, scope);
  const right = clause.right === undefined ? undefined : renderValue(clause.right, scope);
  return OPS[clause.op](left, right);
}

/** `all`: every clause holds; `any`: at least one does. */
export function evaluateCondition(when: ConditionWhen, scope: WorkflowScope): boolean {
  if (when.all) return when.all.every((clause) => evaluateClause(clause, scope));
  return (when.any ?? []).some((clause) => evaluateClause(clause, scope));
}
