import { Inject, Optional } from '@nestjs/common';
import type { JsonObject } from '@agent-ledger/domain';
import { CLOCK, systemClock } from '../../clock/clock';
import type { Clock } from '../../clock/clock';
import type { AgentTool, ToolContext } from '../agent-tool';
import { Tool } from '../tool.decorator';

/**
 * `clock.now`: the current time, from the runtime's {@link Clock} (the
 * `CLOCK` provider when there is one, else the system clock). `READ_ONLY`.
 */
@Tool({
  name: 'clock.now',
  description: 'Returns the current time (UTC) as an ISO 8601 string and as milliseconds since the Unix epoch.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  dataClass: 'public',
})
export class ClockNowTool implements AgentTool<Record<string, never>> {
  private readonly clock: Clock;

  constructor(@Optional() @Inject(CLOCK) clock?: Clock) {
    this.clock = clock ?? systemClock;
  }

  async execute(_args: Record<string, never>, _context: ToolContext): Promise<JsonObject> {
    const epochMillis = this.clock.now();
    return { iso: new Date(epochMillis).toISOString(), epochMillis };
  }
}
