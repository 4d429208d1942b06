import { toOpenApi31Schema } from './openai-routes';

describe('toOpenApi31Schema', () => {
  it("writes Ajv's nullable as OpenAPI 3.1 does: null among the types, in the enum, or as an anyOf branch", () => {
    expect(toOpenApi31Schema({ type: 'boolean', nullable: true })).toEqual({ type: ['boolean', 'null'] });
    expect(toOpenApi31Schema({ type: ['string', 'number'], nullable: true })).toEqual({ type: ['string', 'number', 'null'] });
    expect(toOpenApi31Schema({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(toOpenApi31Schema({ anyOf: [{ type: 'string' }, { type: 'array' }], nullable: true })).toEqual({
      anyOf: [{ anyOf: [{ type: 'string' }, { type: 'array' }] }, { type: 'null' }],
    });
    expect(toOpenApi31Schema({ type: 'integer', nullable: false, minimum: 1 })).toEqual({ type: 'integer', minimum: 1 });
  });

  it('converts nested schemas, and leaves a property named like the keyword a property', () => {
    const schema = {
      type: 'object',
      required: ['nullable'],
      properties: {
        nullable: { type: 'string' },
        list: { type: 'array', items: { type: 'object', nullable: true, properties: { n: { type: 'number', nullable: true } } } },
      },
    };
    expect(toOpenApi31Schema(schema)).toEqual({
      type: 'object',
      required: ['nullable'],
      properties: {
        nullable: { type: 'string' },
        list: { type: 'array', items: { type: ['object', 'null'], properties: { n: { type: ['number', 'null'] } } } },
      },
    });
  });
});
