/**
 * A Dockerfile read into its instructions, for tests that check it without a
 * Docker engine: lines joined at a trailing `\`, comments and parser
 * directives dropped, each instruction with its arguments as written.
 */
export interface Instruction {
  /** Upper case: `FROM`, `RUN`, `ENV`... */
  readonly name: string;
  readonly args: string;
  /** 1-based line where it starts. */
  readonly line: number;
}

/** A Dockerfile's instructions and the build stages they form. */
export interface Dockerfile {
  readonly instructions: readonly Instruction[];
  /** The instructions of each stage, from its `FROM` on (the last one is the image). */
  readonly stages: readonly (readonly Instruction[])[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (pending === null && (line === '' || line.startsWith('#'))) return;
    if (pending !== null && line.startsWith('#')) return; // a comment inside a continued instruction
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1).trim() : line;
    pending = pending === null ? { text: part, line: index + 1 } : { text: `${pending.text} ${part}`.trim(), line: pending.line };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text) as RegExpExecArray;
    instructions.push({ name: (match[1] as string).toUpperCase(), args: match[2] as string, line: pending.line });
    pending = null;
  });
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.name === 'FROM') stages.push([]);
    stages[stages.length - 1]?.push(instruction);
  }
  return { instructions, stages };
}

/** The exec form of CMD, ENTRYPOINT or HEALTHCHECK's CMD (a JSON list of strings); throws on the shell form. */
export function execForm(args: string, what: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(args);
  } catch {
    throw new Error(`${what} is not in exec form (a JSON list): ${args}`);
  }
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) throw new Error(`${what} is not a list of strings: ${args}`);
  return list as string[];
}

/** The variables a stage's `ENV` instructions set (`ENV A=1 B="two"`; the legacy `ENV A 1` too), in order. */
export function stageEnvironment(stage: readonly Instruction[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const { name, args } of stage) {
    if (name !== 'ENV') continue;
    if (!args.includes('=') || /^\S+\s/.test(args.split('=')[0] as string)) {
      const [key, ...rest] = args.split(/\s+/);
      env.set(key as string, rest.join(' '));
      continue;
    }
    for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
      const value = match[2] as string;
      env.set(match[1] as string, /^["']/.test(value) ? value.slice(1, -1) : value);
    }
  }
  return env;
}

/** The last argument of the stage's last instruction of that name (`WORKDIR`, `USER`...), or undefined. */
export function lastOf(stage: readonly Instruction[], name: string): Instruction | undefined {
  return [...stage].reverse().find((instruction) => instruction.name === name);
}

/** `HEALTHCHECK [--option=value...] CMD [...]`: its options and its command (exec form). */
export function healthcheckOf(instruction: Instruction): { options: Map<string, string>; command: string[] } {
  const match = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.*)$/.exec(instruction.args);
  if (match === null) throw new Error(`HEALTHCHECK (line ${instruction.line}) is not "[options] CMD [...]": ${instruction.args}`);
  const options = new Map([...(match[1] as string).matchAll(/--([a-z-]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));
  return { options, command: execForm(match[2] as string, 'HEALTHCHECK CMD') };
}
