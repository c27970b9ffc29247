import { INJECTABLE_WATERMARK } from '@nestjs/common/constants';
import { InvalidFieldError } from '@agent-ledger/domain';
import type { JsonObject, JsonValue } from '@agent-ledger/domain';
import type { ToolContext } from './agent-tool';
import { getToolMetadata, Tool, TOOL_METADATA, TOOL_METADATA_PROPERTY } from './tool.decorator';
import type { ToolMetadata } from './tool-metadata';

const valid: ToolMetadata = {
  name: 'notes.read',
  description: 'Reads a note.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
};

/** Applies `@Tool(metadata)` to a fresh tool class; returns the class. */
function decorate(metadata: unknown): new () => { execute(args: JsonObject, context: ToolContext): Promise<JsonValue> } {
  class Decorated {
    async execute(): Promise<JsonValue> {
      return null;
    }
  }
  Tool(metadata as ToolMetadata)(Decorated);
  return Decorated;
}

/** The error `@Tool(metadata)` throws. */
function refusal(metadata: unknown): InvalidFieldError {
  try {
    decorate(metadata);
  } catch (error) {
    if (error instanceof InvalidFieldError) return error;
    throw error;
  }
  throw new Error('@Tool accepted the metadata');
}

describe('@Tool', () => {
  it('stores the metadata on the class and makes it a Nest provider', () => {
    const decorated = decorate(valid);
    expect(Reflect.getMetadata(TOOL_METADATA, decorated)).toEqual(valid);
    expect(getToolMetadata(decorated)).toEqual(valid);
    expect(getToolMetadata(new decorated())).toEqual(valid);
    expect(Reflect.getMetadata(INJECTABLE_WATERMARK, decorated)).toBe(true);
  });

  it('keeps the metadata under Symbol.for too, so a class decorated by another copy of the runtime is recognised', () => {
    expect(TOOL_METADATA_PROPERTY).toBe(Symbol.for('agent-ledger:tool'));
    expect((decorate(valid) as unknown as Record<symbol, unknown>)[Symbol.for('agent-ledger:tool')]).toEqual(valid);
    // What another copy leaves when its reflect-metadata storage is not this one's: the static property only.
    class FromAnotherCopy {
      async execute(): Promise<JsonValue> {
        return null;
      }
    }
    Object.defineProperty(FromAnotherCopy, Symbol.for('agent-ledger:tool'), { value: valid });
    expect(Reflect.getMetadata(TOOL_METADATA, FromAnotherCopy)).toBeUndefined();
    expect(getToolMetadata(FromAnotherCopy)).toEqual(valid);
    expect(getToolMetadata(new FromAnotherCopy())).toEqual(valid);
  });

  it('keeps a frozen copy: changing the object given afterwards changes nothing', () => {
    const parameters = { type: 'object', properties: { id: { type: 'string' } } };
    const decorated = decorate({ ...valid, parameters });
    (parameters.properties.id as { type: string }).type = 'number';
    const stored = getToolMetadata(decorated);
    expect(stored?.parameters).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.parameters['properties'])).toBe(true);
  });

  it('accepts the optional deadline and data class', () => {
    const decorated = decorate({ ...valid, operationDeadlineSeconds: 0.5, dataClass: 'personal' });
    expect(getToolMetadata(decorated)).toMatchObject({ operationDeadlineSeconds: 0.5, dataClass: 'personal' });
  });

  it('accepts requiresApproval, true or false, and keeps it', () => {
    expect(getToolMetadata(decorate({ ...valid, requiresApproval: true }))).toMatchObject({ requiresApproval: true });
    expect(getToolMetadata(decorate({ ...valid, requiresApproval: false }))).toMatchObject({ requiresApproval: false });
    expect(getToolMetadata(decorate(valid))).not.toHaveProperty('requiresApproval');
  });

  it('returns undefined for a class without @Tool', () => {
    expect(getToolMetadata(class Plain {})).toBeUndefined();
    expect(getToolMetadata(42)).toBeUndefined();
  });

  describe('names the bad field', () => {
    it.each([
      ['a name with a space', { ...valid, name: 'notes read' }, '@Tool.name'],
      ['a name starting with a digit', { ...valid, name: '1notes' }, '@Tool.name'],
      ['a name of 65 characters', { ...valid, name: `a${'b'.repeat(64)}` }, '@Tool.name'],
      ['no name', { description: valid.description, parameters: valid.parameters }, '@Tool.name'],
      ['an empty description', { ...valid, description: '  ' }, '@Tool(notes.read).description'],
      ['no parameters', { name: valid.name, description: valid.description }, '@Tool(notes.read).parameters'],
      ['an array schema', { ...valid, parameters: { type: 'array' } }, '@Tool(notes.read).parameters'],
      ['a schema without type', { ...valid, parameters: { properties: {} } }, '@Tool(notes.read).parameters'],
      ['an invalid schema', { ...valid, parameters: { type: 'object', properties: { id: { type: 'strin' } } } }, '@Tool(notes.read).parameters'],
      ['a zero deadline', { ...valid, operationDeadlineSeconds: 0 }, '@Tool(notes.read).operationDeadlineSeconds'],
      ['a negative deadline', { ...valid, operationDeadlineSeconds: -5 }, '@Tool(notes.read).operationDeadlineSeconds'],
      ['an infinite deadline', { ...valid, operationDeadlineSeconds: Infinity }, '@Tool(notes.read).operationDeadlineSeconds'],
      ['a deadline given as text', { ...valid, operationDeadlineSeconds: '30' }, '@Tool(notes.read).operationDeadlineSeconds'],
      ['an unknown data class', { ...valid, dataClass: 'secret' }, '@Tool(notes.read).dataClass'],
      ['a misspelt field', { ...valid, operationDeadline: 30 }, '@Tool(notes.read).operationDeadline'],
      ['requiresApproval given as text', { ...valid, requiresApproval: 'yes' }, '@Tool(notes.read).requiresApproval'],
      ['requiresApproval given as a number', { ...valid, requiresApproval: 1 }, '@Tool(notes.read).requiresApproval'],
      ['requiresApproval given as null', { ...valid, requiresApproval: null }, '@Tool(notes.read).requiresApproval'],
      ['a misspelt requiresApproval', { ...valid, requireApproval: true }, '@Tool(notes.read).requireApproval'],
    ])('%s', (_case, metadata, field) => {
      const error = refusal(metadata);
      expect(error.field).toBe(field);
      expect(error.failureClass).toBe('clientError');
    });

    it('no metadata object at all', () => {
      expect(refusal(undefined).field).toBe('@Tool');
    });

    it('a class without an execute method', () => {
      expect(() => Tool(valid)(class NotATool {} as never)).toThrow(
        expect.objectContaining({ field: '@Tool(notes.read).execute' }) as Error,
      );
    });
  });

  describe('refuses an effect given as metadata', () => {
    it.each(['effect', 'toolEffect', 'sideEffects'])('%s', (key) => {
      const error = refusal({ ...valid, [key]: 'READ_ONLY' });
      expect(error.field).toBe(`@Tool(notes.read).${key}`);
      expect(error.problem).toMatch(/property of its code/);
      expect(error.problem).toMatch(/DeclaresToolEffect/);
    });

    it('has no effect field in its type', () => {
      // @ts-expect-error ToolMetadata has no effect: it is declared in code.
      const metadata: ToolMetadata = { ...valid, effect: 'READ_ONLY' };
      expect(() => decorate(metadata)).toThrow(/DeclaresToolEffect/);
    });
  });
});
