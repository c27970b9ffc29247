/**
 * The `http` scenario's load generator: `connections` keep-alive
 * connections on loopback, each sending POST requests back to back (a
 * closed loop: the next request leaves when the previous answer has been
 * read), first for a warm-up, then for the measured window. Runs in the
 * bench process on `node:http`.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Latencies } from '../../support/stats';

/** What to send, how hard and how long. */
export interface LoadSpec {
  readonly port: number;
  /** e.g. `/runs`. */
  readonly path: string;
  /** Sent with every request (`content-type` and `content-length` are added). */
  readonly headers: Readonly<Record<string, string>>;
  /** Concurrent connections, each with one request in flight at a time. */
  readonly connections: number;
  /** Load before the window (not measured: sockets open, JIT warms, SQLite caches fill). */
  readonly warmUpMs: number;
  /** The measured window. */
  readonly durationMs: number;
  /** The JSON body of a connection's n-th request; each must start a new run. */
  body(connection: number, sequence: number): string;
  /** An answer not complete after this long counts as a failure (`timeout`). @default 30000 */
  readonly timeoutMs?: number;
  /** Called when the window opens and when it closes (by timers: a few ms late on a busy loop), e.g. to read a server's CPU time. */
  readonly onWindow?: (edge: 'start' | 'end') => void;
}

/** What a load gave. */
export interface LoadResult {
  readonly connections: number;
  /** The measured window, in seconds (longer than asked when no answer had landed in it by its end). */
  readonly seconds: number;
  /** 2xx answers completed in the window. */
  readonly succeeded: number;
  /** Latencies of the window's 2xx answers (request sent to answer read), ms. */
  readonly latencies: Latencies;
  /** Failures, warm-up included, by kind: `HTTP <status>` for a non-2xx answer, the error's code (`ECONNRESET`, `timeout`...) otherwise. */
  readonly failures: ReadonlyMap<string, number>;
  /** The first answer body (or error message) of each kind of failure, cut to 300 characters. */
  readonly failureSamples: ReadonlyMap<string, string>;
  /** 2xx answers over the whole load, warm-up included: the runs it started. */
  readonly succeededTotal: number;
  /** CPU time of the bench process (the generator) during the window, ms. */
  readonly generatorCpuMs: number;
}

/** The answer to one request, read to its end. */
interface Answer {
  readonly status: number;
  readonly body: string;
}

function post(agent: Agent, spec: LoadSpec, body: string, timeoutMs: number): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port: spec.port,
        method: 'POST',
        path: spec.path,
        headers: { ...spec.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.once('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'timeout' })));
    req.once('error', reject);
    req.end(body);
  });
}

/** How much longer a window may stay open when no answer has landed in it yet. */
const WINDOW_EXTENSION_LIMIT_MS = 120_000;

/** Runs one load (warm-up, then the window) and returns what it measured. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const timeoutMs = spec.timeoutMs ?? 30_000;
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections, maxFreeSockets: spec.connections });
  const latencies = new Latencies();
  const failures = new Map<string, number>();
  const failureSamples = new Map<string, string>();
  let succeeded = 0;
  let succeededTotal = 0;
  const start = performance.now();
  const windowStart = start + spec.warmUpMs;
  // A window in which no answer lands measures nothing, and on a loaded machine one call can outlast a short
  // window: it then stays open until an answer lands in it, at most WINDOW_EXTENSION_LIMIT_MS longer.
  let windowEnd = windowStart + spec.durationMs;
  const giveUpAt = windowEnd + WINDOW_EXTENSION_LIMIT_MS;
  const windowOpen = (): boolean => {
    const now = performance.now();
    return now < windowEnd || (succeeded === 0 && now < giveUpAt);
  };
  const generatorCpu: { atStart: NodeJS.CpuUsage | null; used: NodeJS.CpuUsage | null } = { atStart: null, used: null };
  const startTimer = setTimeout(() => {
    generatorCpu.atStart = process.cpuUsage();
    spec.onWindow?.('start');
  }, spec.warmUpMs);
  const windowClosed = new Promise<void>((resolve) =>
    setTimeout(() => {
      if (generatorCpu.atStart !== null) generatorCpu.used = process.cpuUsage(generatorCpu.atStart);
      spec.onWindow?.('end');
      resolve();
    }, spec.warmUpMs + spec.durationMs),
  );

  const fail = (kind: string, sample: string) => {
    failures.set(kind, (failures.get(kind) ?? 0) + 1);
    if (!failureSamples.has(kind)) failureSamples.set(kind, sample.slice(0, 300));
  };

  const connection = async (index: number) => {
    for (let sequence = 0; windowOpen(); sequence += 1) {
      const body = spec.body(index, sequence);
      const sent = performance.now();
      let answer: Answer;
      try {
        answer = await post(agent, spec, body, timeoutMs);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        fail(code, error instanceof Error ? error.message : String(error));
        continue;
      }
      const done = performance.now();
      if (answer.status < 200 || answer.status > 299) {
        fail(`HTTP ${answer.status}`, answer.body);
        continue;
      }
      succeededTotal += 1;
      if (done >= windowStart && (done <= windowEnd || succeeded === 0)) {
        windowEnd = Math.max(windowEnd, done);
        succeeded += 1;
        latencies.add(done - sent);
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: spec.connections }, (_, index) => connection(index)));
    // The loops end with the answers in flight at the window's end: its timer is due by then.
    await windowClosed;
  } finally {
    clearTimeout(startTimer);
    agent.destroy();
  }
  const cpu = generatorCpu.used;
  return {
    connections: spec.connections,
    seconds: (windowEnd - windowStart) / 1000,
    succeeded,
    latencies,
    failures,
    failureSamples,
    succeededTotal,
    generatorCpuMs: cpu === null ? Number.NaN : (cpu.user + cpu.system) / 1000,
  };
}
