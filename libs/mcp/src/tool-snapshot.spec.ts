import { createHash } from 'node:crypto';
import { compareToolSnapshots, toolDefinitionHash, toolSnapshotHash, toolSnapshotOf, type McpToolSnapshot } from './tool-snapshot';

const echo: McpToolSnapshot = {
  name: 'echo',
  title: 'Echo',
  description: 'Answers its text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};
const add: McpToolSnapshot = {
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
};

describe('toolDefinitionHash', () => {
  it('is the sha256 of the canonical JSON (keys sorted at every level, absent fields left out)', () => {
    const canonical =
      '{"description":"Answers its text.","inputSchema":{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"},"name":"echo","title":"Echo"}';
    expect(toolDefinitionHash(echo)).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('does not depend on key order, and changes with any covered field', () => {
    const reordered = {
      inputSchema: { required: ['text'], properties: { text: { type: 'string' } }, type: 'object' },
      description: echo.description,
      title: 'Echo',
      name: 'echo',
    };
    expect(toolDefinitionHash(reordered)).toBe(toolDefinitionHash(echo));
    expect(toolDefinitionHash({ ...echo, description: 'Other.' })).not.toBe(toolDefinitionHash(echo));
    expect(toolDefinitionHash({ ...echo, outputSchema: { type: 'object' } })).not.toBe(toolDefinitionHash(echo));
  });

  it('ignores fields an approval does not cover', () => {
    expect(toolDefinitionHash({ ...echo, annotations: { readOnlyHint: true } } as McpToolSnapshot)).toBe(toolDefinitionHash(echo));
  });
});

describe('toolSnapshotHash', () => {
  it('does not depend on the order the server listed its tools in', () => {
    expect(toolSnapshotHash([echo, add])).toBe(toolSnapshotHash([add, echo]));
    expect(toolSnapshotHash([echo, add])).not.toBe(toolSnapshotHash([echo]));
    expect(toolSnapshotHash([])).toBe(createHash('sha256').update('[]').digest('hex'));
  });
});

describe('compareToolSnapshots', () => {
  it('names new and changed tools, and approved tools no longer listed', () => {
    const changedEcho = { ...echo, description: 'Changed.' };
    const fresh: McpToolSnapshot = { name: 'fresh', inputSchema: { type: 'object' } };
    expect(compareToolSnapshots([echo, add], [changedEcho, fresh])).toEqual({ changed: ['echo', 'fresh'], removed: ['add'] });
    expect(compareToolSnapshots([echo, add], [add, echo])).toEqual({ changed: [], removed: [] });
  });
});

describe('toolSnapshotOf', () => {
  it('keeps the covered fields of a listed tool and drops the rest', () => {
    expect(
      toolSnapshotOf({
        name: 'x',
        title: 'X',
        description: 'd',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        annotations: {},
      } as never),
    ).toEqual({ name: 'x', title: 'X', description: 'd', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });
    expect(toolSnapshotOf({ name: 'y', inputSchema: { type: 'object' } })).toEqual({ name: 'y', inputSchema: { type: 'object' } });
  });
});
