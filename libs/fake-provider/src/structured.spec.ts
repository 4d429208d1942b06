import { invalidInstance, minimalInstance } from './structured';

describe('minimalInstance', () => {
  it('answers {} without a schema', () => {
    expect(minimalInstance(undefined)).toEqual({});
  });

  it.each([
    [{ type: 'string' }, 'example'],
    [{ type: 'string', minLength: 10 }, 'examplexxx'],
    [{ type: 'string', maxLength: 3 }, 'exa'],
    [{ type: 'string', format: 'email' }, 'user@example.com'],
    [{ type: 'integer' }, 0],
    [{ type: 'integer', minimum: 2.5 }, 3],
    [{ type: 'number', minimum: -1.5 }, -1.5],
    [{ type: 'number', exclusiveMinimum: 0 }, 1],
    [{ type: 'boolean' }, true],
    [{ type: 'null' }, null],
    [{ type: ['null', 'string'] }, 'example'],
    [{ const: 'fixed', type: 'string' }, 'fixed'],
    [{ enum: ['b', 'a'] }, 'b'],
    [{ anyOf: [{ type: 'null' }, { type: 'integer', minimum: 4 }] }, 4],
    [{ type: 'array', items: { type: 'boolean' }, minItems: 2 }, [true, true]],
    [{ type: 'array', items: { type: 'string' } }, []],
    [{}, null],
  ])('answers %j with %j', (schema, expected) => {
    expect(minimalInstance(schema)).toEqual(expected);
  });

  it('fills only the required properties of an object, recursively', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 18 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city'] },
        nickname: { type: 'string' },
      },
      required: ['name', 'age', 'tags', 'address', 'free'],
      additionalProperties: false,
    };
    expect(minimalInstance(schema)).toEqual({ name: 'example', age: 18, tags: ['example'], address: { city: 'example' }, free: null });
  });

  it('follows local $refs, and ends a required property that refers back to its parent in null', () => {
    const schema = {
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#/$defs/node' } }, required: ['label'] } },
    };
    expect(minimalInstance(schema)).toEqual({ label: 'example' });
    const endless = { type: 'object', properties: { self: { $ref: '#' } }, required: ['self'] };
    const deep = JSON.stringify(minimalInstance(endless));
    expect(deep).toMatch(/^(\{"self":)+null\}+$/);
  });
});

describe('invalidInstance', () => {
  const person = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };

  it('drops the first required property', () => {
    expect(invalidInstance(person, { name: 'example', age: 0 })).toEqual({ age: 0 });
  });

  it('answers a string for an object schema that requires nothing, an object for any other schema', () => {
    expect(invalidInstance({ type: 'object', properties: {} }, {})).toBe('not an object');
    expect(invalidInstance({ type: 'string' }, 'example')).toEqual({ unexpected: true });
    expect(invalidInstance(undefined, {})).toEqual({ unexpected: true });
  });

  it('falls back the same way when the valid value lacks the required property', () => {
    expect(invalidInstance(person, 'scripted')).toBe('not an object');
  });
});
