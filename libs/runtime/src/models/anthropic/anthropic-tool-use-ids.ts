import { fnv1a32 } from '../fnv1a32';

/** What Anthropic accepts as a `tool_use` id (and a `tool_result`'s `tool_use_id`). */
export const ANTHROPIC_TOOL_USE_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/**
 * Maps the runtime's tool-call ids (step ids such as `run-1/r0/t0`, which
 * Anthropic refuses: `/` is not allowed) to `tool_use` ids, for one request:
 * each character outside `[a-zA-Z0-9_-]` becomes `_` (`run-1_r0_t0`); an id
 * whose mapping collides with another's gets `_<8 hex digits of a hash of the
 * full id>` appended. A `tool_use` and the `tool_result` that answers it get
 * the same id, which is all the API checks. The ids a model gives its own
 * calls are never read back: the runtime names each call after its step.
 */
export class AnthropicToolUseIds {
  private readonly toWireId = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** The `tool_use` id for the runtime's call id `id`. */
  toWire(id: string): string {
    const known = this.toWireId.get(id);
    if (known !== undefined) return known;
    let wire = id === '' ? `call_${fnv1a32(id)}` : id.replace(/[^a-zA-Z0-9_-]/g, '_');
    if (this.taken.has(wire)) wire = `${wire}_${fnv1a32(id)}`;
    for (let n = 1; this.taken.has(wire); n++) wire = `${wire}_${n}`;
    this.toWireId.set(id, wire);
    this.taken.add(wire);
    return wire;
  }
}
