import type { DynamicModule, ModuleMetadata, Provider } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { createRunDecider } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { Clock } from '../clock/clock';
import { CLOCK, systemClock } from '../clock/clock';
import type { AgentCatalog } from '../segment/agent-catalog';
import { AGENT_CATALOG } from '../segment/agent-catalog';
import { AuditGapSaga } from '../saga/audit-gap-saga';
import { AUDIT_GAP_SAGA_OPTIONS, checkAuditGapSagaOptions } from '../saga/audit-gap-saga.options';
import { AgentToolsCheck } from '../segment/agent-tools-check';
import { AuditRecorder } from '../persistence/audit-recorder';
import { AUDIT_EVENT_STORE, RUN_EVENT_STORE } from '../persistence/event-store.tokens';
import { EventProcessors } from '../persistence/event-processors';
import { PROCESSORS_OPTIONS } from '../persistence/event-processors.options';
import { QueueIndex } from '../queue/queue-index';
import { Reaper } from '../workers/reaper';
import { RunCommandProcessor } from '../persistence/run-command-processor';
import { RUN_DECIDER } from '../persistence/run-decider.token';
import { BUS_PROVIDERS } from '../bus/bus-providers';
import { RunService } from '../bus/run-service';
import type { ExecutionOptions } from '../workers/runtime-options';
import { EXECUTION_OPTIONS, processorsOptionsOf } from '../workers/runtime-options';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { SegmentRunner } from '../segment/segment-runner';
import { StepAppender } from '../persistence/step-appender';
import { TOOL_CATALOG } from '../segment/tool-catalog';
import { WorkerPool } from '../workers/worker-pool';
import { WorkerProcessSupervisor } from '../workers/worker-process-supervisor';

/** What the execution engine is built from. */
export interface ExecutionModuleOptions extends ExecutionOptions {
  /** The store of the runs' streams. The caller opens and closes it. */
  readonly runStore: EventStore;
  /**
   * The store of the audit streams.
   * @default runStore
   */
  readonly auditStore?: EventStore;
  readonly agents: AgentCatalog;
  /**
   * The provider of `TOOL_CATALOG`, e.g. `{ provide: TOOL_CATALOG, useExisting: ToolRegistry }`
   * with `ToolsModule` among `imports`.
   */
  readonly tools: Provider;
  /** Modules the tool provider needs (e.g. `ToolsModule.forRoot(...)`). */
  readonly imports?: ModuleMetadata['imports'];
  /** @default the system clock */
  readonly clock?: Clock;
}

/**
 * The execution engine over one or two event stores: the run and audit
 * writers (`RunCommandProcessor`, `AuditRecorder`), segments, workers, the
 * reaper, the audit-gap saga, and the handlers of the public commands and
 * queries (with `RunService`, their facade).
 */
@Module({})
export class ExecutionModule {
  static forRoot(options: ExecutionModuleOptions): DynamicModule {
    const execution: ExecutionOptions = { policy: options.policy, workers: options.workers, reaper: options.reaper, auditGapSaga: options.auditGapSaga, processors: options.processors };
    return {
      module: ExecutionModule,
      imports: [CqrsModule.forRoot(), ...(options.imports ?? [])],
      providers: [
        { provide: RUN_EVENT_STORE, useValue: options.runStore },
        { provide: AUDIT_EVENT_STORE, useValue: options.auditStore ?? options.runStore },
        { provide: CLOCK, useValue: options.clock ?? systemClock },
        { provide: EXECUTION_OPTIONS, useValue: execution },
        { provide: PROCESSORS_OPTIONS, useFactory: () => processorsOptionsOf(options) },
        EventProcessors,
        { provide: AUDIT_GAP_SAGA_OPTIONS, useFactory: () => checkAuditGapSagaOptions(options.auditGapSaga) },
        { provide: RUN_DECIDER, useValue: createRunDecider(options.policy) },
        { provide: AGENT_CATALOG, useValue: options.agents },
        options.tools,
        RuntimeMetrics,
        RunCommandProcessor,
        AuditRecorder,
        SegmentRunner,
        StepAppender,
        QueueIndex,
        WorkerPool,
        WorkerProcessSupervisor,
        Reaper,
        ...BUS_PROVIDERS,
        AgentToolsCheck,
        AuditGapSaga,
      ],
      exports: [RunService, WorkerPool, WorkerProcessSupervisor, Reaper, AuditGapSaga, QueueIndex, EventProcessors, RuntimeMetrics, RunCommandProcessor, RUN_EVENT_STORE, AUDIT_EVENT_STORE, CLOCK, TOOL_CATALOG],
    };
  }
}
