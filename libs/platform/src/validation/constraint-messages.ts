import {
  datasetRowListProblem,
  flatMetadataProblem,
  mcpHeadersProblem,
  mcpSelectionProblem,
  responseSchemaProblem,
  scopeIdProblem,
} from '@waggle/contracts';
import { nestedMessage, type ErrorDetail, type NestedMessage } from '@waggle/errors';
import { getMetadataStorage, type ValidationError } from 'class-validator';

/** The property a message names: itself, or "each value in" it for a rule with `{ each: true }`. */
type Property = string | NestedMessage;

/** What a failed rule's message is built from: the property, the rule's arguments, the value that failed it. */
interface FailedRule {
  property: Property;
  /** The property's own name, without "each value in". */
  name: string;
  each: boolean;
  constraints: readonly unknown[];
  value: unknown;
  /** The object the property belongs to (rules that read a sibling, as a scope id its scope). */
  object: unknown;
}

/** class-validator's `$constraintN` text: a list joined with commas, anything else as a string. */
function constraintText(constraint: unknown): string {
  if (Array.isArray(constraint)) return constraint.join(', ');
  if (typeof constraint === 'symbol') return constraint.description ?? '';
  return String(constraint);
}

/** `@Length(min, max)`: which bound the value missed, as class-validator words it. */
function lengthMessage({ property, constraints: [min, max], value }: FailedRule): ErrorDetail {
  const length = (value as { length?: number } | null | undefined)?.length;
  const hasMin = min !== null && min !== undefined;
  const hasMax = max !== null && max !== undefined;
  if (hasMin && (!value || (length as number) < (min as number)))
    return { detail: 'validation_min_length', params: { property, min: constraintText(min) } };
  if (hasMax && (length as number) > (max as number))
    return { detail: 'validation_max_length', params: { property, max: constraintText(max) } };
  return { detail: 'validation_length_between', params: { property, min: constraintText(min), max: constraintText(max) } };
}

/**
 * Every class-validator rule the project's request classes use (libs/contracts, the gateway's
 * DTOs), by constraint name, as a message id with parameters: the English is class-validator's
 * own text, and the Spanish is the catalog's (error-messages.data.ts). A rule missing here is
 * `validation_invalid`, a sentence in each language all the same.
 */
const CONSTRAINT_MESSAGES: Readonly<Record<string, (rule: FailedRule) => ErrorDetail | undefined>> = {
  isString: ({ property }) => ({ detail: 'validation_is_string', params: { property } }),
  isInt: ({ property }) => ({ detail: 'validation_is_int', params: { property } }),
  isNumber: ({ property }) => ({ detail: 'validation_is_number', params: { property } }),
  isBoolean: ({ property }) => ({ detail: 'validation_is_boolean', params: { property } }),
  isObject: ({ property }) => ({ detail: 'validation_is_object', params: { property } }),
  isArray: ({ property }) => ({ detail: 'validation_is_array', params: { property } }),
  isUuid: ({ property }) => ({ detail: 'validation_is_uuid', params: { property } }),
  isIso8601: ({ property }) => ({ detail: 'validation_is_iso8601', params: { property } }),
  isDefined: ({ property }) => ({ detail: 'validation_is_defined', params: { property } }),
  isNotEmpty: ({ property }) => ({ detail: 'validation_is_not_empty', params: { property } }),
  min: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_min', params: { property, min: constraintText(constraints[0]) } } : undefined,
  max: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_max', params: { property, max: constraintText(constraints[0]) } } : undefined,
  isLength: (rule) => (rule.constraints.length > 0 ? lengthMessage(rule) : undefined),
  minLength: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_min_length', params: { property, min: constraintText(constraints[0]) } } : undefined,
  maxLength: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_max_length', params: { property, max: constraintText(constraints[0]) } } : undefined,
  isIn: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_is_in', params: { property, values: constraintText(constraints[0]) } } : undefined,
  isEnum: ({ property, constraints }) =>
    constraints.length > 1 ? { detail: 'validation_is_in', params: { property, values: constraintText(constraints[1]) } } : undefined,
  matches: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_matches', params: { property, pattern: constraintText(constraints[0]) } } : undefined,
  arrayMinSize: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_array_min_size', params: { property, min: constraintText(constraints[0]) } } : undefined,
  arrayMaxSize: ({ property, constraints }) =>
    constraints.length > 0 ? { detail: 'validation_array_max_size', params: { property, max: constraintText(constraints[0]) } } : undefined,
  arrayUnique: ({ property }) => ({ detail: 'validation_array_unique', params: { property } }),
  // Rules class-validator (and Nest's pipe) apply themselves.
  nestedValidation: ({ name, each }) => ({ detail: each ? 'validation_nested_each' : 'validation_nested', params: { property: name } }),
  whitelistValidation: ({ name }) => ({ detail: 'validation_unknown_property', params: { property: name } }),
  unknownValue: () => ({ detail: 'validation_unknown_value' }),
  // The project's own decorators (libs/contracts).
  isAttachmentList: ({ property, constraints }) =>
    constraints.length > 0
      ? { detail: 'validation_attachment_list', params: { property, max: constraintText(constraints[0]) } }
      : undefined,
  isFlatMetadata: ({ value }) => flatMetadataProblem(value),
  isResponseSchema: ({ value }) => responseSchemaProblem(value),
  isMcpSelection: ({ name, value }) => mcpSelectionProblem(value, name),
  isMcpHeaders: ({ value }) => mcpHeadersProblem(value),
  isDatasetRowList: ({ value, constraints }) => datasetRowListProblem(value, { withId: constraints[0] === true }),
  givenOnlyWith: ({ name, constraints }) => ({
    detail: 'dataset_field_needs',
    params: { field: name, other: constraintText(constraints[0]) },
  }),
  givenOnlyWithout: ({ name, constraints }) => ({
    detail: 'dataset_field_excludes',
    params: { field: name, other: constraintText(constraints[0]) },
  }),
  isScopeIdOfScope: ({ value, object }) => scopeIdProblem((object as { scope?: unknown } | undefined)?.scope, value) ?? undefined,
};

/** A rule of a class as its metadata declares it: its arguments, and whether it applies to each item. */
interface DeclaredRule {
  constraints: readonly unknown[];
  each: boolean;
}

/** Each request class's rules by property and constraint name, read from class-validator's metadata once per class. */
const declaredRules = new WeakMap<object, Map<string, DeclaredRule>>();

function rulesOf(target: new () => object): Map<string, DeclaredRule> {
  let rules = declaredRules.get(target);
  if (rules) return rules;
  rules = new Map();
  const storage = getMetadataStorage();
  for (const metadata of storage.getTargetValidationMetadatas(target, '', false, false)) {
    const name = (metadata.constraintCls && storage.getTargetValidatorConstraints(metadata.constraintCls)[0]?.name) || metadata.type;
    const key = `${metadata.propertyName}\u0000${name}`;
    if (!rules.has(key)) rules.set(key, { constraints: metadata.constraints ?? [], each: metadata.each === true });
  }
  declaredRules.set(target, rules);
  return rules;
}

/**
 * The message of one failed constraint of a class-validator error, as a message id with its
 * parameters, for `details[].messages`: rendered where the body is built, in the workspace's
 * language (toErrorBody). The rule's arguments come from the metadata of the class that failed it
 * (`error.target`, which the validation pipes keep), read once per class; a request that passes
 * validation never comes here.
 */
export function constraintMessage(error: ValidationError, constraint: string): NestedMessage {
  const target = (error.target as object | undefined)?.constructor as (new () => object) | undefined;
  const declared =
    target && target !== Object && target !== Array ? rulesOf(target).get(`${error.property}\u0000${constraint}`) : undefined;
  const each = declared?.each ?? false;
  const property: Property = each
    ? nestedMessage({ detail: 'validation_each_value_in', params: { property: error.property } })
    : error.property;
  const rule: FailedRule = {
    property,
    name: error.property,
    each,
    constraints: declared?.constraints ?? [],
    value: error.value,
    object: error.target,
  };
  const message = Object.hasOwn(CONSTRAINT_MESSAGES, constraint) ? CONSTRAINT_MESSAGES[constraint](rule) : undefined;
  return message ?? { detail: 'validation_invalid', params: { property } };
}

/** The constraint names given a message of their own, for the specs. */
export const LOCALIZED_CONSTRAINTS: readonly string[] = Object.keys(CONSTRAINT_MESSAGES);
