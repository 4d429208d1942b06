import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { IsAttachmentList, IsFlatMetadata, McpSelectionField, ResponseFormatField, type ResponseFormat } from '@waggle/contracts';
import { localizeDetails, WaggleException, type FieldDetail } from '@waggle/errors';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  getMetadataStorage,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { createValidationPipe } from '../nats/validation';
import { LOCALIZED_CONSTRAINTS } from './constraint-messages';

enum Colour {
  Red = 'red',
  Blue = 'blue',
}

class Inner {
  @IsString()
  name!: string;
}

/** A rule no message is written for: it still answers a sentence in each language. */
function IsSomethingNew(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSomethingNew',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate: () => false, defaultMessage: () => '$property is not valid' },
    });
}

/** One property per constraint the project's request classes use, each sent a value that fails it. */
class EveryRule {
  @IsString() string!: string;
  @IsInt() int!: number;
  @IsNumber() number!: number;
  @IsBoolean() boolean!: boolean;
  @IsObject() object!: object;
  @IsArray() array!: unknown[];
  @IsUUID() uuid!: string;
  @IsISO8601() date!: string;
  @IsDefined() defined!: string;
  @IsNotEmpty() filled!: string;
  @Min(3) min!: number;
  @Max(5) max!: number;
  @Length(2, 4) tooShort!: string;
  @Length(2, 4) tooLong!: string;
  @Length(2, 4) notText!: string;
  @MinLength(2) minLength!: string;
  @MaxLength(3) maxLength!: string;
  @IsIn(['a', 'b']) choice!: string;
  @IsEnum(Colour) colour!: Colour;
  @Matches(/^x+$/) pattern!: string;
  @ArrayMinSize(2) few!: string[];
  @ArrayMaxSize(1) many!: string[];
  @IsString({ each: true }) @Length(1, 3, { each: true }) labels!: string[];
  @ValidateNested() @Type(() => Inner) inner!: Inner;
  @IsFlatMetadata() metadata!: Record<string, unknown>;
  @ResponseFormatField() format!: ResponseFormat;
  @IsAttachmentList() attachments!: unknown[];
  @McpSelectionField() mcp!: unknown[];
  @IsSomethingNew() novel!: string;
}

const failing = {
  string: 5,
  int: 1.5,
  number: 'x',
  boolean: 'yes',
  object: 'x',
  array: 'x',
  uuid: 'x',
  date: 'x',
  defined: null,
  filled: '',
  min: 1,
  max: 9,
  tooShort: 'x',
  tooLong: 'xxxxx',
  notText: 7,
  minLength: 'x',
  maxLength: 'xxxx',
  choice: 'c',
  colour: 'green',
  pattern: 'y',
  few: ['a'],
  many: ['a', 'b'],
  labels: ['a', 'abcd', 3],
  inner: 'x',
  metadata: { nested: { a: 1 } },
  format: { type: 'json_schema', schema: 'x' },
  attachments: 'x',
  mcp: [
    { server: 'docs', tools: '*' },
    { server: 'docs', tools: ['search'] },
  ],
  novel: 'x',
  extra: true,
};

const metadata: ArgumentMetadata = { type: 'body', metatype: EveryRule, data: undefined };

/** What the project's pipe answers: its details, which hold message ids with parameters. */
async function refusal(): Promise<FieldDetail[]> {
  const error = await Promise.resolve(createValidationPipe().transform(structuredClone(failing), metadata)).catch(
    (caught: unknown) => caught,
  );
  if (!(error instanceof WaggleException)) throw new Error('the body was not refused');
  return error.details as FieldDetail[];
}

/** class-validator's own English for the same body, field by field. */
async function classValidatorEnglish(): Promise<Array<{ field: string; messages: string[] }>> {
  const flatten = (errors: ValidationError[], prefix = ''): Array<{ field: string; messages: string[] }> =>
    errors.flatMap((error) => {
      const field = prefix ? `${prefix}.${error.property}` : error.property;
      const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
      return [...own, ...flatten(error.children ?? [], field)];
    });
  const pipe = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, exceptionFactory: (errors) => errors });
  const errors = await Promise.resolve(pipe.transform(structuredClone(failing), metadata)).catch((caught: unknown) => caught);
  return flatten(errors as ValidationError[]);
}

describe("a validation failure's details", () => {
  it("carry a message id for every constraint the project uses, none left to the generic one but the unknown rule's", async () => {
    const details = await refusal();
    const ids = details.flatMap(({ field, messages }) => messages.map((message) => [field, (message as { detail: string }).detail]));
    expect(ids.filter(([, id]) => id === 'validation_invalid')).toEqual([['novel', 'validation_invalid']]);
    expect(details.every(({ messages }) => messages.every((message) => typeof message === 'object'))).toBe(true);
  });

  it('have a message of their own for every constraint the contracts declare', () => {
    // Every request class of libs/contracts is loaded by the import above; the rules that never fail (`@IsOptional`, `@ValidateIf`) aside.
    const storage = getMetadataStorage();
    const declared = (storage as unknown as { validationMetadatas: Map<unknown, ValidationMetadata[]> }).validationMetadatas;
    const names = new Set(
      [...declared.values()]
        .flat()
        .filter((rule) => rule.type !== 'conditionalValidation')
        .map((rule) => (rule.constraintCls && storage.getTargetValidatorConstraints(rule.constraintCls)[0]?.name) || rule.type),
    );
    expect(names.size).toBeGreaterThan(20);
    expect([...names].filter((name) => !LOCALIZED_CONSTRAINTS.includes(name) && name !== 'isSomethingNew')).toEqual([]);
  });

  it('read in English exactly as class-validator wrote them', async () => {
    expect(localizeDetails(await refusal(), 'en')).toEqual(await classValidatorEnglish());
  });

  it('read in Spanish in a Spanish workspace, every message of every field', async () => {
    const details = await refusal();
    const english = localizeDetails(details, 'en') as Array<{ field: string; messages: string[] }>;
    const spanish = localizeDetails(details, 'es') as Array<{ field: string; messages: string[] }>;
    expect(spanish.map(({ field }) => field)).toEqual(english.map(({ field }) => field));
    spanish.forEach(({ field, messages }, index) =>
      messages.forEach((message, at) => {
        expect({ field, message }).not.toEqual({ field, message: english[index]?.messages[at] });
        expect(typeof message).toBe('string');
      }),
    );
    const shown = ['labels', 'inner', 'metadata', 'format.schema', 'attachments', 'mcp', 'extra', 'tooLong', 'novel'];
    expect(spanish.filter(({ field }) => shown.includes(field))).toEqual([
      { field: 'extra', messages: ['la propiedad extra no está permitida'] },
      { field: 'tooLong', messages: ['tooLong debe tener como máximo 4 caracteres'] },
      {
        field: 'labels',
        messages: ['cada valor de labels debe tener entre 1 y 3 caracteres', 'cada valor de labels debe ser una cadena de texto'],
      },
      { field: 'inner', messages: ['la propiedad anidada inner debe ser un objeto o una lista'] },
      {
        field: 'metadata',
        messages: ['metadata.nested debe ser una cadena, un número, un booleano o nulo (no se aceptan objetos ni listas anidados)'],
      },
      { field: 'format.schema', messages: ['schema debe ser un objeto JSON Schema'] },
      {
        field: 'attachments',
        messages: ['attachments debe ser una lista de como máximo 20 URL (cadenas) u objetos con una cadena file_url'],
      },
      { field: 'mcp', messages: ['mcp[1].server vuelve a nombrar docs'] },
      { field: 'novel', messages: ['novel no es válido'] },
    ]);
  });
});
