import {
  ValidationPipe,
  type ArgumentMetadata,
  type PipeTransform,
  type ValidationError,
  type ValidationPipeOptions,
} from '@nestjs/common';
import { EmptyRequest, type RequestClass } from '@waggle/contracts';
import { WaggleException, type FieldDetail } from '@waggle/errors';
import { constraintMessage } from '../validation/constraint-messages';
import { assertStorableInput } from '../validation/storable-input';
import { compileBodyValidator } from '../validation/compiled-validation';

export type FieldProblem = FieldDetail;

function flatten(errors: ValidationError[], prefix = ''): Array<FieldProblem & { missing: boolean }> {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = Object.keys(error.constraints ?? {});
    const own = constraints.length
      ? [{ field, messages: constraints.map((constraint) => constraintMessage(error, constraint)), missing: error.value === undefined }]
      : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * class-validator failures as catalog errors: a missing required field is
 * `missing_required_field`, anything else `validation_error`, each naming the fields. Each
 * message is an id with parameters (constraintMessage), rendered in the workspace's language
 * where the body is built.
 */
export function validationExceptionFactory(errors: ValidationError[]): WaggleException {
  const problems = flatten(errors);
  const missing = problems.filter((problem) => problem.missing);
  const details = problems.map(({ field, messages }) => ({ field, messages }));
  if (missing.length > 0) {
    return new WaggleException('missing_required_field', { details });
  }
  return new WaggleException('validation_error', { details });
}

/**
 * The validation both edges use: unknown fields refused, payloads transformed to DTOs. Each error
 * keeps the object it was found in (`target`), whose class says the failed rule's arguments.
 */
export const VALIDATION_PIPE_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  validationError: { target: true },
  exceptionFactory: validationExceptionFactory,
};

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe(VALIDATION_PIPE_OPTIONS);
}

/** A payload that must carry nothing: no properties at all. */
class EmptyPayloadPipe implements PipeTransform {
  transform(value: unknown): EmptyRequest {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value))
      throw new WaggleException('validation_error', { details: [{ field: '', messages: [{ detail: 'validation_empty_payload' }] }] });
    const unknown = Object.keys(value);
    if (unknown.length > 0)
      throw new WaggleException('validation_error', {
        details: unknown.map((field) => ({ field, messages: [{ detail: 'validation_unknown_property', params: { property: field } }] })),
      });
    return {};
  }
}

/**
 * Validates (and transforms) a NATS payload against its contract's request class, whatever
 * the parameter's declared type, after refusing what no service could store or walk (the
 * same check as the gateway's edge, for callers that do not pass through it).
 */
export function createPayloadPipe(requestClass: RequestClass<unknown>): PipeTransform {
  const validation: PipeTransform =
    requestClass === EmptyRequest ? new EmptyPayloadPipe() : new ValidationPipe({ ...VALIDATION_PIPE_OPTIONS, expectedType: requestClass });
  // Compiled once from the class's rules (compileBodyValidator): a payload it accepts needs no
  // class-validator pass; any other (or a class it cannot reproduce) gets ValidationPipe's answer.
  const compiled = requestClass === EmptyRequest ? undefined : compileBodyValidator(requestClass as new () => object);
  return {
    transform(value: unknown, metadata: ArgumentMetadata): unknown {
      assertStorableInput(value);
      return compiled?.(value) ?? validation.transform(value, metadata);
    },
  };
}
