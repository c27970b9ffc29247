/**
 * CPU per tool step, by stage (issue 18): where the product's CPU goes while
 * it records tool steps. Each round is one product round of the step
 * scenario (64 runs, one process, default durability, read models and saga
 * running) under V8's sampling profiler (node:inspector, `Profiler.start` /
 * `Profiler.stop`, every 500 µs); the profile's samples are summed by stage
 * (`bench/support/cpu-stages.ts`, the rules in one place) and divided by the
 * round's tool steps.
 *
 * CPU per tool step is the process's CPU time over the round
 * (`process.cpuUsage`, user + system, every thread) divided by the tool
 * steps; each stage gets its share of the profile's samples (the main
 * thread's, idle left out) of it. The profiler samples by the clock: under
 * load, a sample also lands on a frame while the thread waits for a core, so
 * the samples give the shares, `process.cpuUsage` the amount.
 */
import { ToolEffect } from '@agent-ledger/domain';
import type { BenchContext, BenchScenario, Measurement, ScenarioResult } from '../support/bench-scenario';
import { CPU_STAGES, cpuByStage } from '../support/cpu-stages';
import { formatNumber } from '../support/report';
import { median } from '../support/stats';
import { productStepRound } from './steps/product-round';

const EFFECTS = [ToolEffect.READ_ONLY, ToolEffect.IDEMPOTENT_WRITE, ToolEffect.NON_IDEMPOTENT_WRITE];

/** CPU per tool step by stage: the product's step rounds under the profiler. */
export const cpuScenario: BenchScenario = {
  name: 'cpu',
  title: 'CPU per tool step, by stage (profiled step rounds, 64 runs, one process)',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const runs = context.quick ? 8 : 64;
    const stepsPerRun = context.quick ? 5 : 20;
    const targetSteps = context.quick ? 80 : 2000;
    const totalRuns = runs * Math.ceil(targetSteps / (runs * stepsPerRun));
    const measurements: Measurement[] = [];
    const notes: string[] = [];
    for (const effect of EFFECTS) {
      const variant = { effect, runs, processes: 1, durability: 'processCrash' };
      const byStage = new Map<string, number[]>(CPU_STAGES.map((s) => [s, []]));
      const profiled: number[] = [];
      const processCpu: number[] = [];
      const stepsPerSecond: number[] = [];
      for (let round = 0; round < context.rounds; round++) {
        const result = await productStepRound({ dir: context.tempDir('cpu'), durability: 'processCrash', effect, runs, totalRuns, stepsPerRun, worker: null, profile: true });
        if (result.cpuProfile === null) throw new Error('the profiled round returned no profile');
        const cpu = cpuByStage(result.cpuProfile, result.window);
        if (cpu.totalMs === 0) throw new Error('the profile has no sample in the measured round');
        for (const stage of CPU_STAGES) byStage.get(stage)?.push((result.cpuMsPerStep * cpu.stages[stage]) / cpu.totalMs);
        profiled.push(cpu.totalMs / result.toolSteps);
        processCpu.push(result.cpuMsPerStep);
        stepsPerSecond.push(result.stepsPerSecond);
        context.log(
          `${effect} round ${round + 1}: ${formatNumber(result.cpuMsPerStep)} ms CPU per tool step ` +
            `(${formatNumber(cpu.totalMs / result.toolSteps)} ms sampled on the main thread), ${formatNumber(result.stepsPerSecond)} steps/s under the profiler`,
        );
      }
      const m = (stage: string, samples: number[]) => measurements.push({ subject: 'product', variant: { ...variant, stage }, metric: 'CPU per tool step', unit: 'ms', better: 'lower', samples });
      for (const stage of CPU_STAGES) m(stage, byStage.get(stage) ?? []);
      m('total (process.cpuUsage)', processCpu);
      m('main thread busy in the samples (not CPU under load)', profiled);
      measurements.push({ subject: 'product', variant, metric: 'tool steps/s under the profiler', unit: 'steps/s', better: 'higher', samples: stepsPerSecond });
      const ranked = CPU_STAGES.map((stage) => [stage, median(byStage.get(stage) ?? [])] as const).sort((a, b) => b[1] - a[1]);
      notes.push(`${effect}: ${ranked.map(([stage, ms]) => `${stage} ${((ms / median(processCpu)) * 100).toFixed(0)}%`).join(', ')}`);
    }
    notes.unshift(
      `each round: ${totalRuns} runs of ${stepsPerRun} no-op tool steps, ${runs} in flight, one process (workers, reaper, read models, audit-gap saga), embedded store, processCrash; ` +
        'V8 sampling profiler every 500 µs from the first submission to the last settled run; a sample goes to the stage of its top frame, or of the nearest frame below it that names one (bench/support/cpu-stages.ts); ' +
          "each stage's CPU = the round's process.cpuUsage per tool step x the stage's share of the samples",
    );
    return { measurements, ratios: [], targets: [], notes };
  },
};
