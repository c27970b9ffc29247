import { ConfigurationError, InvalidFieldError, ToolEffect } from '@agent-ledger/domain';
import type { DeclaresToolEffect, JsonValue } from '@agent-ledger/domain';
import type { AgentTool } from './agent-tool';
import { Tool, TOOL_METADATA } from './tool.decorator';
import { ToolRegistry } from './tool-registry';

const pathSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    lines: { type: 'array', items: { type: 'integer' } },
    'odd key': { type: 'boolean' },
  },
  required: ['path'],
  additionalProperties: false,
} as const;

@Tool({ name: 'notes.read', description: 'Reads a note.', parameters: pathSchema })
class ReadNoteTool implements AgentTool {
  async execute(): Promise<JsonValue> {
    return 'note';
  }
}

@Tool({ name: 'notes.put', description: 'Stores a note.', parameters: pathSchema })
class PutNoteTool implements AgentTool, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }
  async execute(): Promise<JsonValue> {
    return null;
  }
}

@Tool({ name: 'notes.append', description: 'Appends to a note.', parameters: pathSchema, operationDeadlineSeconds: 12, dataClass: 'personal' })
class AppendNoteTool implements AgentTool, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
  async execute(): Promise<JsonValue> {
    return null;
  }
}

@Tool({ name: 'notes.count', description: 'Counts notes.', parameters: { type: 'object' }, operationDeadlineSeconds: 5 })
class CountNotesTool implements AgentTool {
  async execute(): Promise<JsonValue> {
    return 3;
  }
}

function registryWith(...tools: (AgentTool & object)[]): ToolRegistry {
  const registry = new ToolRegistry();
  tools.forEach((tool) => registry.register(tool));
  return registry;
}

describe('ToolRegistry', () => {
  describe('effects', () => {
    const registry = registryWith(new ReadNoteTool(), new PutNoteTool(), new AppendNoteTool());

    it('reads each effect from the instance: READ_ONLY when the code declares none', () => {
      expect(registry.get('notes.read')?.effect).toBe('READ_ONLY');
      expect(registry.get('notes.put')?.effect).toBe('IDEMPOTENT_WRITE');
      expect(registry.get('notes.append')?.effect).toBe('NON_IDEMPOTENT_WRITE');
      expect(registry.effectFor('notes.read')).toBe('READ_ONLY');
      expect(registry.effectFor('notes.put')).toBe('IDEMPOTENT_WRITE');
      expect(registry.effectFor('notes.append')).toBe('NON_IDEMPOTENT_WRITE');
    });

    it('resolves an unknown (removed or renamed) tool to NON_IDEMPOTENT_WRITE', () => {
      expect(registry.has('notes.delete')).toBe(false);
      expect(registry.get('notes.delete')).toBeUndefined();
      expect(registry.effectFor('notes.delete')).toBe('NON_IDEMPOTENT_WRITE');
    });

    it('asks the tool once, at registration: a later answer changes nothing', () => {
      let answer: ToolEffect = ToolEffect.NON_IDEMPOTENT_WRITE;
      const fickle = Object.assign(new ReadNoteTool(), { getEffect: jest.fn(() => answer) });
      const own = registryWith(fickle);
      answer = ToolEffect.READ_ONLY;
      expect(own.effectFor('notes.read')).toBe('NON_IDEMPOTENT_WRITE');
      expect(own.get('notes.read')?.effect).toBe('NON_IDEMPOTENT_WRITE');
      own.describe(['notes.read']);
      own.validateArguments('notes.read', { path: 'a' });
      own.register(new PutNoteTool());
      expect(own.effectFor('notes.read')).toBe('NON_IDEMPOTENT_WRITE');
      expect(fickle.getEffect).toHaveBeenCalledTimes(1);
    });

    it('ignores an effect given as data on the instance', () => {
      const relabelled = Object.assign(new AppendNoteTool(), { effect: 'READ_ONLY', toolEffect: 'READ_ONLY' });
      expect(registryWith(relabelled).effectFor('notes.append')).toBe('NON_IDEMPOTENT_WRITE');
    });

    it('refuses an effect slipped into the stored metadata', () => {
      class Smuggled {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      Reflect.defineMetadata(TOOL_METADATA, { name: 'smuggled', description: 'x', parameters: { type: 'object' }, effect: 'READ_ONLY' }, Smuggled);
      expect(() => registryWith(new Smuggled())).toThrow(expect.objectContaining({ field: '@Tool(smuggled).effect' }) as Error);
    });

    it('refuses an invalid declaration, naming the tool', () => {
      const odd = Object.assign(new ReadNoteTool(), { getEffect: () => 'MOSTLY_HARMLESS' });
      expect(() => registryWith(odd)).toThrow(expect.objectContaining({ field: '@Tool(notes.read).getEffect()' }) as Error);
    });

    it('offers no member that sets or overrides an effect, and freezes what it holds', () => {
      expect(Object.getOwnPropertyNames(ToolRegistry.prototype).sort()).toEqual(
        // add and externalSchemaAjv are private: register's and registerExternal's common path, the lenient Ajv.
        ['add', 'constructor', 'describe', 'effectFor', 'externalSchemaAjv', 'get', 'has', 'names', 'register', 'registerExternal', 'useWorkspace', 'validateArguments', 'workspaceDir'].sort(),
      );
      expect(ToolRegistry.prototype.register.length).toBe(1);
      // registerExternal's origin says where an MCP tool's effect came from; the effect is still the instance's getEffect().
      expect(ToolRegistry.prototype.registerExternal.length).toBe(2);
      // useWorkspace takes a folder, nothing of a tool.
      expect(ToolRegistry.prototype.useWorkspace.length).toBe(1);
      const registered = registry.get('notes.append');
      expect(Object.isFrozen(registered)).toBe(true);
      expect(() => {
        (registered as { effect: string }).effect = 'READ_ONLY';
      }).toThrow(TypeError);
    });
  });

  describe('an MCP tool (registerExternal)', () => {
    @Tool({ name: 'fs.write_file', description: 'Writes a file.', parameters: { $comment: 'lenient', type: 'object', properties: { path: { type: 'string', format: 'uri-reference-ish' } } } })
    class WriteFile implements AgentTool, DeclaresToolEffect {
      getEffect(): ToolEffect {
        return ToolEffect.IDEMPOTENT_WRITE;
      }
      async execute(): Promise<JsonValue> {
        return null;
      }
    }
    const origin = {
      kind: 'mcp' as const,
      server: 'fs',
      tool: 'write_file',
      effect: ToolEffect.IDEMPOTENT_WRITE,
      source: 'declared' as const,
      declared: ToolEffect.IDEMPOTENT_WRITE,
      hinted: ToolEffect.IDEMPOTENT_WRITE,
      trusted: false,
      conflict: false,
    };

    it('registers it with its origin, its schema compiled leniently (an unknown format the strict register refuses)', () => {
      const registry = new ToolRegistry();
      registry.registerExternal(new WriteFile(), origin);
      expect(registry.get('fs.write_file')).toMatchObject({ effect: 'IDEMPOTENT_WRITE', origin: { kind: 'mcp', server: 'fs', source: 'declared' } });
      expect(registry.validateArguments('fs.write_file', { path: 'a.txt' })).toEqual({ ok: true, args: { path: 'a.txt' } });
      expect(() => new ToolRegistry().register(new WriteFile())).toThrow(/does not compile as a strict JSON schema/);
    });

    it('refuses an origin whose effect is not the one the instance declares: the origin cannot relabel a tool', () => {
      const registry = new ToolRegistry();
      expect(() => registry.registerExternal(new WriteFile(), { ...origin, effect: ToolEffect.READ_ONLY })).toThrow(
        '@Tool(fs.write_file) declares IDEMPOTENT_WRITE in code, but its binding resolved READ_ONLY',
      );
      expect(registry.has('fs.write_file')).toBe(false);
    });

    it('gives a tool of code the origin code', () => {
      expect(registryWith(new AppendNoteTool()).get('notes.append')?.origin).toEqual({ kind: 'code' });
    });
  });

  describe('registration', () => {
    it('refuses a second tool of the same name and keeps the first', () => {
      const registry = registryWith(new AppendNoteTool());
      @Tool({ name: 'notes.append', description: 'A shadow.', parameters: { type: 'object' } })
      class Shadow {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      expect(() => registry.register(new Shadow())).toThrow(ConfigurationError);
      expect(() => registry.register(new AppendNoteTool())).toThrow(/must be unique/);
      expect(registry.effectFor('notes.append')).toBe('NON_IDEMPOTENT_WRITE');
      expect(registry.names()).toEqual(['notes.append']);
    });

    it('refuses an object whose class has no @Tool metadata', () => {
      class Undecorated {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      expect(() => new ToolRegistry().register(new Undecorated())).toThrow(/Undecorated.*not decorated with @Tool/);
    });

    it.each([
      ['an unknown keyword', { type: 'object', properties: { a: { type: 'string', colour: 'red' } } }, /unknown keyword: "colour"/],
      ['an unknown format', { type: 'object', properties: { a: { type: 'string', format: 'email' } } }, /unknown format "email"/],
      ['a required property that is not defined', { type: 'object', properties: {}, required: ['a'] }, /required property "a"/],
    ])('refuses a schema with %s when compiling it strictly, naming the tool', (_case, parameters, message) => {
      @Tool({ name: 'loose', description: 'Loose schema.', parameters })
      class Loose {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      let error: unknown;
      try {
        new ToolRegistry().register(new Loose());
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/^@Tool\(loose\)\.parameters does not compile/);
      expect((error as Error).message).toMatch(message);
    });

    it('applies the deadline defaults: 300 s for a write without one, none for a read without one', () => {
      const registry = registryWith(new ReadNoteTool(), new PutNoteTool(), new AppendNoteTool(), new CountNotesTool());
      expect(registry.get('notes.read')?.operationDeadlineSeconds).toBeNull();
      expect(registry.get('notes.put')?.operationDeadlineSeconds).toBe(300);
      expect(registry.get('notes.append')?.operationDeadlineSeconds).toBe(12);
      expect(registry.get('notes.count')?.operationDeadlineSeconds).toBe(5);
    });

    it("applies the data class default 'internal'", () => {
      const registry = registryWith(new ReadNoteTool(), new AppendNoteTool());
      expect(registry.get('notes.read')?.dataClass).toBe('internal');
      expect(registry.get('notes.append')?.dataClass).toBe('personal');
    });

    it('reads requiresApproval from the metadata: false unless the tool declares it, whatever its effect', () => {
      @Tool({ name: 'notes.peek', description: 'Peeks at a note.', parameters: { type: 'object' }, requiresApproval: true })
      class PeekNoteTool implements AgentTool {
        async execute(): Promise<JsonValue> {
          return null;
        }
      }
      const registry = registryWith(new ReadNoteTool(), new PutNoteTool(), new PeekNoteTool());
      expect(registry.get('notes.read')?.requiresApproval).toBe(false);
      expect(registry.get('notes.put')?.requiresApproval).toBe(false);
      expect(registry.get('notes.peek')?.requiresApproval).toBe(true);
      expect(registry.get('notes.peek')?.effect).toBe('READ_ONLY');
      expect(Object.isFrozen(registry.get('notes.peek'))).toBe(true);
    });

    it('lists the names sorted, whatever the registration order', () => {
      expect(registryWith(new PutNoteTool(), new AppendNoteTool(), new ReadNoteTool()).names()).toEqual([
        'notes.append',
        'notes.put',
        'notes.read',
      ]);
    });
  });

  describe('describe', () => {
    const registry = registryWith(new ReadNoteTool(), new PutNoteTool());

    it('describes the named tools in the order given', () => {
      expect(registry.describe(['notes.put', 'notes.read'])).toEqual([
        { name: 'notes.put', description: 'Stores a note.', parameters: pathSchema },
        { name: 'notes.read', description: 'Reads a note.', parameters: pathSchema },
      ]);
      expect(registry.describe([])).toEqual([]);
    });

    it('names every unknown tool', () => {
      expect(() => registry.describe(['notes.read', 'notes.delete', 'web.fetch'])).toThrow(ConfigurationError);
      expect(() => registry.describe(['notes.read', 'notes.delete', 'web.fetch'])).toThrow(/"notes\.delete", "web\.fetch"/);
    });

    it('refuses a tool named twice', () => {
      expect(() => registry.describe(['notes.read', 'notes.read'])).toThrow(/more than once: notes\.read/);
    });
  });

  describe('validateArguments', () => {
    const registry = registryWith(new ReadNoteTool());

    it('accepts arguments that match the schema, unchanged', () => {
      const args = { path: 'a.md', lines: [1, 2] };
      expect(registry.validateArguments('notes.read', args)).toEqual({ ok: true, args });
    });

    it('reports every problem, naming the field', () => {
      const result = registry.validateArguments('notes.read', { path: 7, lines: [1, 'two'], 'odd key': 'yes', mode: 'x' });
      expect(result.ok).toBe(false);
      expect(result.ok ? [] : [...result.errors].sort()).toEqual(
        [
          'arguments.path must be string',
          'arguments.lines[1] must be integer',
          'arguments["odd key"] must be boolean',
          'arguments.mode is not allowed',
        ].sort(),
      );
    });

    it('names a missing required field', () => {
      expect(registry.validateArguments('notes.read', {})).toEqual({ ok: false, errors: ['arguments.path is required'] });
    });

    it.each([
      [null, 'arguments must be an object (got null)'],
      [[], 'arguments must be an object (got an array)'],
      ['a.md', 'arguments must be an object (got string)'],
      [undefined, 'arguments must be an object (got undefined)'],
    ])('returns an error result, not an exception, for arguments %p', (args, message) => {
      expect(registry.validateArguments('notes.read', args)).toEqual({ ok: false, errors: [message] });
    });

    it('returns an error result for a tool that is not registered', () => {
      expect(registry.validateArguments('notes.delete', { path: 'a' })).toEqual({ ok: false, errors: ['tool "notes.delete" does not exist'] });
    });
  });

  it('throws InvalidFieldError for bad metadata and ConfigurationError for the rest (both AgentLedgerErrors)', () => {
    class Manual {
      async execute(): Promise<JsonValue> {
        return null;
      }
    }
    Reflect.defineMetadata(TOOL_METADATA, { name: 'manual', description: '', parameters: { type: 'object' } }, Manual);
    expect(() => new ToolRegistry().register(new Manual())).toThrow(InvalidFieldError);
  });

  describe('the workspace every tool call gets', () => {
    it('is none until one is set, then the folder set (ToolContext.workspaceDir)', () => {
      const registry = new ToolRegistry();
      expect(registry.workspaceDir).toBeUndefined();
      registry.useWorkspace('/srv/workspace');
      expect(registry.workspaceDir).toBe('/srv/workspace');
      registry.useWorkspace('/srv/workspace');
      expect(registry.workspaceDir).toBe('/srv/workspace');
    });

    it('refuses a relative path, naming workspaceDir', () => {
      const registry = new ToolRegistry();
      expect(() => registry.useWorkspace('data/workspace')).toThrow(expect.objectContaining({ field: 'workspaceDir', message: expect.stringContaining('"data/workspace"') }) as Error);
      expect(registry.workspaceDir).toBeUndefined();
    });

    it('refuses a second, other folder, naming both: an application has one workspace', () => {
      const registry = new ToolRegistry();
      registry.useWorkspace('/srv/a');
      expect(() => registry.useWorkspace('/srv/b')).toThrow(ConfigurationError);
      expect(() => registry.useWorkspace('/srv/b')).toThrow(/"\/srv\/a".*"\/srv\/b"/);
      expect(registry.workspaceDir).toBe('/srv/a');
    });
  });
});
