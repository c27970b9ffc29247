/**
 * The repository's container set-up as tests see it: the Dockerfile, the
 * compose file (YAML merge keys resolved, as Compose does) and `.env.example`,
 * and the environment a compose service's container gets (the image's `ENV`,
 * then the service's `environment`, interpolated from a `.env`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { interpolateDocument } from './compose-interpolation';
import { parseDotenv } from './dotenv-file';
import type { Dockerfile } from './dockerfile';
import { parseDockerfile, stageEnvironment } from './dockerfile';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** The parts of a compose service these tests read. */
export interface ComposeService {
  readonly image?: string;
  readonly build?: string | { readonly context?: string; readonly dockerfile?: string };
  readonly profiles?: readonly string[];
  readonly command?: unknown;
  readonly entrypoint?: unknown;
  readonly environment?: Readonly<Record<string, string | number | boolean | null>>;
  readonly env_file?: unknown;
  readonly ports?: readonly string[];
  readonly volumes?: readonly string[];
  readonly depends_on?: Readonly<Record<string, { readonly condition: string }>>;
  readonly restart?: string;
  readonly healthcheck?: { readonly test: readonly string[]; readonly interval?: string; readonly timeout?: string; readonly retries?: number; readonly start_period?: string };
}

/** A compose file, as parsed (not yet interpolated). */
export interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
}

export function readDockerfile(): Dockerfile {
  return parseDockerfile(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
}

export function readComposeFile(): ComposeFile {
  return parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

export function readEnvExample(): Map<string, string> {
  return parseDotenv(readFileSync(join(REPO_ROOT, '.env.example'), 'utf8'), '.env.example');
}

/** The compose file interpolated from `dotenv` (Compose's `.env`); throws {@link InterpolationError} as Compose refuses it. */
export function interpolatedCompose(dotenv: ReadonlyMap<string, string>, used?: Set<string>): ComposeFile {
  return interpolateDocument(readComposeFile(), dotenv, used);
}

/** The environment of a service's container: the image's `ENV` (the Dockerfile's last stage), then the service's `environment`. */
export function containerEnvironment(compose: ComposeFile, service: string, dockerfile: Dockerfile = readDockerfile()): Map<string, string> {
  const env = stageEnvironment(dockerfile.stages[dockerfile.stages.length - 1] ?? []);
  for (const [name, value] of Object.entries(compose.services[service]?.environment ?? {})) {
    if (value !== null) env.set(name, String(value));
  }
  return env;
}

/** A `source:target[:mode]` volume entry of a service. */
export interface VolumeMount {
  readonly source: string;
  readonly target: string;
  /** A named volume (declared under the file's `volumes`), not a path of the host. */
  readonly named: boolean;
}

export function volumeMounts(compose: ComposeFile, service: string): VolumeMount[] {
  const declared = Object.keys(compose.volumes ?? {});
  return (compose.services[service]?.volumes ?? []).map((entry) => {
    const [source = '', target = ''] = entry.split(':');
    return { source, target, named: declared.includes(source) && !/^[./~]/.test(source) };
  });
}

/** A `[host_ip:]host_port:container_port` port entry. */
export function portMapping(entry: string): { hostIp: string | null; hostPort: string; containerPort: string } {
  const parts = entry.split(':');
  if (parts.length === 3) return { hostIp: parts[0] as string, hostPort: parts[1] as string, containerPort: parts[2] as string };
  if (parts.length === 2) return { hostIp: null, hostPort: parts[0] as string, containerPort: parts[1] as string };
  throw new Error(`not host:container: ${entry}`);
}
