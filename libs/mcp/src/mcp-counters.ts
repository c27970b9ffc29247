/** The counters the MCP connections keep (`RuntimeMetrics` counters of the same names). */
export type McpCounter = 'mcpServerRestarts' | 'mcpStderrLinesDropped';

/** Where {@link McpCounters} sends its counts: the application's `RuntimeMetrics`, or anything with its `increment`. */
export interface McpCounterSink {
  increment(counter: McpCounter, by?: number): void;
}

/**
 * The MCP connections' counts: kept until a sink is attached (the servers
 * start before the application and its `RuntimeMetrics`), then added to it,
 * and sent to it from then on.
 */
export class McpCounters {
  private readonly pending = new Map<McpCounter, number>();
  private sink: McpCounterSink | null = null;

  increment(counter: McpCounter, by = 1): void {
    if (this.sink !== null) this.sink.increment(counter, by);
    else this.pending.set(counter, (this.pending.get(counter) ?? 0) + by);
  }

  attach(sink: McpCounterSink): void {
    this.sink = sink;
    for (const [counter, count] of this.pending) sink.increment(counter, count);
    this.pending.clear();
  }
}
