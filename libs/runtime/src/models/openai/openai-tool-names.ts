import { fnv1a32 } from '../fnv1a32';

/** What OpenAI-compatible servers accept as a function name. */
export const OPENAI_FUNCTION_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Maps our tool names (which may contain `.`, e.g. `files.read`) to OpenAI
 * function names (which may not) and back, for one request.
 *
 * The rule: each `.` becomes `__` (`files.read` <-> `files__read`), which a
 * model reads as easily as the original. Two cases cannot use it, and get
 * `<sanitised prefix>_<8 hex digits of a hash of the full name>` instead:
 * a name longer than 64 characters once mapped, and a name whose mapping
 * collides with another's (`a.b` and `a__b` both map to `a__b`; names are
 * taken in sorted order, so the first keeps the readable form, and the result
 * is the same in every round).
 *
 * Decoding looks the wire name up in the table built from the names of the
 * request (the offered tools and every tool named in the conversation), so it
 * is exact. A wire name the model invented is decoded by the rule backwards
 * (`__` -> `.`); the runtime then refuses it as a call of a tool it does not offer.
 */
export class OpenAiToolNames {
  private readonly toWireName = new Map<string, string>();
  private readonly fromWireName = new Map<string, string>();

  /** Builds the table for these tool names (duplicates are fine). */
  constructor(names: Iterable<string>) {
    for (const name of [...new Set(names)].sort()) {
      let wire = readableWireName(name);
      if (!OPENAI_FUNCTION_NAME_PATTERN.test(wire) || this.fromWireName.has(wire)) {
        wire = hashedWireName(name);
      }
      if (this.fromWireName.has(wire)) {
        // Two names with the same 32-bit hash and prefix: astronomically unlikely, but never map two tools to one name.
        wire = hashedWireName(`${name}\u0000${this.fromWireName.size}`);
      }
      this.toWireName.set(name, wire);
      this.fromWireName.set(wire, name);
    }
  }

  /** The function name the model sees for `toolName`. */
  toWire(toolName: string): string {
    return this.toWireName.get(toolName) ?? readableWireName(toolName);
  }

  /** The tool name the model meant by `wireName`. */
  fromWire(wireName: string): string {
    return this.fromWireName.get(wireName) ?? wireName.replace(/__/g, '.');
  }
}

function readableWireName(toolName: string): string {
  return toolName.replace(/\./g, '__');
}

function hashedWireName(toolName: string): string {
  const prefix = toolName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55);
  return `${prefix}_${fnv1a32(toolName)}`;
}
