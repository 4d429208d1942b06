import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { TransformationType } from 'class-transformer';
import type { MetadataStorage as TransformMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** class-transformer's own storage (where `@Type()` lives), as @nestjs/mapped-types reads it; its path has no typings. */
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformMetadataStorage };

/** One property's rules, read once from class-validator's (and class-transformer's) metadata. */
interface PropertyPlan {
  name: string;
  /** `@IsOptional()`, `@ValidateIf()`: when one says no, the property's rules are skipped. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  /** `@IsDefined()` and every constraint (`@IsString()`, `@Length()`, custom ones), in class-validator's order. */
  checks: Array<{ validate: (value: unknown, args: ValidationArguments) => unknown; each: boolean; args: ValidationArguments }>;
  /** `@ValidateNested()` with the class class-transformer would build (`@Type()`), for an object or each item of an array. */
  nested?: CompiledClass;
  /** `@ValidateNested()` without a `@Type()`: class-validator refuses the plain object it would see. */
  nestedWithoutType: boolean;
}

/** A class with validation rules. */
type DtoClass = new () => object;

/** A DTO class as a plain function: the body as an instance of the class when it passes, undefined otherwise. */
interface CompiledClass {
  target: new () => object;
  allowed: Set<string>;
  properties: PropertyPlan[];
}

/**
 * What `compileBodyValidator` gives: the value turned into an instance of the class when it is
 * valid, or `undefined` when the compiled rules cannot accept it (invalid, or a shape they leave
 * to class-validator: null or non-object bodies, scalars or arrays of arrays where nested
 * objects are declared, prototype keys). The caller then runs class-validator, which writes the refusal.
 */
export type CompiledBodyValidator = (value: unknown) => object | undefined;

/** Keys ValidationPipe strips from every object before validating (prototype pollution). */
const PROTO_KEYS = ['__proto__', 'prototype', 'constructor'];

/**
 * Compiles a DTO class's class-validator rules into plain functions, once: the metadata look-ups,
 * grouping and inheritance walk class-validator does on every call happen here instead, and the
 * per-request work is calling each constraint's own `validate` (the same functions class-validator
 * calls) on the body's values. Returns undefined when the class uses something the compiled form
 * does not reproduce (async or promise validation, a `@Type()` discriminator, a metadata kind it
 * does not know): such a class keeps class-validator on every request.
 *
 * The compiled form only ever accepts: a body it does not accept goes to class-validator, so every
 * refusal keeps class-validator's exact answer.
 */
export function compileBodyValidator(target: new () => object): CompiledBodyValidator | undefined {
  const compiled = compileClass(target, new Map());
  if (!compiled) return undefined;
  return (value) => (isPlainJsonObject(value) && !hasProtoKeys(value) ? run(compiled, value) : undefined);
}

function compileClass(target: new () => object, seen: Map<DtoClass, CompiledClass | undefined>): CompiledClass | undefined {
  if (seen.has(target)) return seen.get(target);
  const storage = getMetadataStorage();
  // The call class-validator's executor makes with the pipe's options (no groups, `always` off).
  const metadatas = storage.getTargetValidationMetadatas(target, '', false, false, undefined);
  // forbidUnknownValues: a class without rules refuses everything.
  if (metadatas.length === 0) return undefined;
  // class-transformer's @Expose/@Exclude reshape the instance, and a @Transform changes a value
  // before it is validated: the compiled form does neither, so such a class keeps class-validator.
  if (defaultMetadataStorage.getExposedMetadatas(target).length > 0 || defaultMetadataStorage.getExcludedMetadatas(target).length > 0)
    return fail(seen, target);
  const compiled: CompiledClass = { target, allowed: new Set(), properties: [] };
  seen.set(target, compiled);
  const grouped = storage.groupByPropertyName(metadatas) as Record<string, ValidationMetadata[]>;
  for (const [name, group] of Object.entries(grouped)) {
    if (group.length === 0) continue;
    if (defaultMetadataStorage.findTransformMetadatas(target, name, TransformationType.PLAIN_TO_CLASS).length > 0)
      return fail(seen, target);
    compiled.allowed.add(name);
    const plan: PropertyPlan = { name, conditions: [], checks: [], nestedWithoutType: false };
    const defined = group.filter((metadata) => metadata.type === ValidationTypes.IS_DEFINED);
    const custom = group.filter((metadata) => metadata.type === ValidationTypes.CUSTOM_VALIDATION);
    for (const metadata of group) {
      switch (metadata.type) {
        case ValidationTypes.CONDITIONAL_VALIDATION:
          plan.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
          break;
        case ValidationTypes.NESTED_VALIDATION: {
          const type = defaultMetadataStorage.findTypeMetadata(target, name);
          if (!type) {
            plan.nestedWithoutType = true;
            break;
          }
          if (type.options?.discriminator) return fail(seen, target);
          const nestedClass = type.typeFunction() as (new () => object) | undefined;
          const nested = nestedClass && compileClass(nestedClass, seen);
          if (!nested) return fail(seen, target);
          plan.nested = nested;
          break;
        }
        case ValidationTypes.IS_DEFINED:
        case ValidationTypes.CUSTOM_VALIDATION:
        case ValidationTypes.WHITELIST:
          break;
        default:
          // PROMISE_VALIDATION and anything newer.
          return fail(seen, target);
      }
    }
    for (const metadata of [...defined, ...custom]) {
      if (metadata.validateIf) return fail(seen, target);
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        if (constraint.async) return fail(seen, target);
        const instance = constraint.instance as { validate: (value: unknown, args: ValidationArguments) => unknown };
        plan.checks.push({
          validate: instance.validate.bind(instance),
          each: metadata.each === true,
          args: {
            targetName: target.name,
            property: metadata.propertyName,
            object: {},
            value: undefined,
            constraints: metadata.constraints,
          },
        });
      }
    }
    compiled.properties.push(plan);
  }
  return compiled;
}

function fail(seen: Map<DtoClass, CompiledClass | undefined>, target: DtoClass): undefined {
  seen.set(target, undefined);
  return undefined;
}

/** An object as JSON.parse makes them: its prototype is an `Object.prototype` (of any realm: tests run in a VM context). */
function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype !== null && Object.getPrototypeOf(prototype) === null;
}

/** Whether ValidationPipe's stripProtoKeys would change the value (JSON bodies only hold objects, arrays and scalars). */
function hasProtoKeys(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasProtoKeys(item)) return true;
    return false;
  }
  for (const key of PROTO_KEYS) if (Object.prototype.hasOwnProperty.call(value, key)) return true;
  for (const key in value) if (hasProtoKeys((value as Record<string, unknown>)[key])) return true;
  return false;
}

function run(compiled: CompiledClass, value: Record<string, unknown>): object | undefined {
  // whitelist + forbidNonWhitelisted
  for (const key in value) if (!compiled.allowed.has(key)) return undefined;
  const instance = new compiled.target() as Record<string, unknown>;
  for (const key in value) instance[key] = value[key];
  for (const plan of compiled.properties) {
    const item = value[plan.name];
    let applies = true;
    for (const condition of plan.conditions) applies = condition(value, item) && applies;
    if (!applies) continue;
    for (const check of plan.checks) {
      // Synchronous: the arguments object is the plan's own, filled for this call.
      const args = check.args;
      args.object = value;
      args.value = item;
      if (check.each && Array.isArray(item)) {
        for (const element of item) if (check.validate(element, args) !== true) return undefined;
      } else if (check.validate(item, args) !== true) return undefined;
    }
    if (item === undefined) continue;
    if (plan.nestedWithoutType) return undefined;
    if (plan.nested) {
      // class-transformer builds each item of an array, and class-validator validates each one
      // (with or without `each`); null, scalars and arrays in arrays are left to them.
      if (Array.isArray(item)) {
        const items: object[] = [];
        for (const element of item) {
          const nested = isPlainJsonObject(element) ? run(plan.nested, element) : undefined;
          if (!nested) return undefined;
          items.push(nested);
        }
        instance[plan.name] = items;
        continue;
      }
      if (!isPlainJsonObject(item)) return undefined;
      const nested = run(plan.nested, item);
      if (!nested) return undefined;
      instance[plan.name] = nested;
    }
  }
  return instance;
}

/**
 * The edge's validation pipe with compiled validators for the classes given (the invoke and
 * trigger bodies): a body of one of them is checked by its compiled form, and only when that
 * does not accept it by `fallback` (class-validator), which then answers exactly as before.
 * Everything else goes to `fallback` unchanged.
 */
export class CompiledValidationPipe implements PipeTransform {
  private readonly compiled = new Map<unknown, CompiledBodyValidator>();

  constructor(
    private readonly fallback: PipeTransform,
    classes: Array<new () => object>,
  ) {
    for (const target of classes) {
      const validator = compileBodyValidator(target);
      if (!validator) throw new Error(`${target.name} has validation rules the compiled validator does not reproduce`);
      this.compiled.set(target, validator);
    }
  }

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const validator = metadata.type === 'body' && metadata.metatype ? this.compiled.get(metadata.metatype) : undefined;
    return (validator && validator(value)) ?? this.fallback.transform(value, metadata);
  }
}
