/**
 * The container set-up (Dockerfile, docker-compose.yml, .env.example), checked
 * without a Docker engine against the service itself: its configuration
 * reader and its list of variables, its routes, its build. The start command
 * is run with this environment in test/e2e/container.e2e-spec.ts.
 */
import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { parse } from 'yaml';
import { generateApiKey, hashApiKey } from '@agent-ledger/http';
import { readModelsPath, auditGapSagaPath } from '../../apps/agent-ledger/src/config/read-models';
import { readServiceConfig } from '../../apps/agent-ledger/src/config/service-config';
import { SERVICE_ENVIRONMENT_VARIABLES } from '../../apps/agent-ledger/src/config/service-environment';
import { ROUTE_ACCESS } from '../../libs/http/src/auth/auth.decorators';
import { HealthController } from '../../libs/http/src/health/health.controller';
import { ReadinessController } from '../../libs/http/src/health/readiness.controller';
import { InterpolationError } from '../support/container/compose-interpolation';
import type { ComposeFile, VolumeMount } from '../support/container/container-setup';
import { containerEnvironment, interpolatedCompose, portMapping, readComposeFile, readDockerfile, readEnvExample, REPO_ROOT, volumeMounts } from '../support/container/container-setup';
import { execForm, healthcheckOf, lastOf, stageEnvironment } from '../support/container/dockerfile';

const dockerfile = readDockerfile();
const buildStage = dockerfile.stages[0] ?? [];
const image = dockerfile.stages[dockerfile.stages.length - 1] ?? [];
const imageEnv = stageEnvironment(image);
const workdir = lastOf(image, 'WORKDIR')?.args ?? '';
const cmd = execForm(lastOf(image, 'CMD')?.args ?? '', 'CMD');
const healthcheck = healthcheckOf(lastOf(image, 'HEALTHCHECK') ?? { name: 'HEALTHCHECK', args: '', line: 0 });
const envExample = readEnvExample();

/** `.env.example` as a user fills it in: its required API_KEYS set to a new key's hash. */
const filledEnv = new Map([...envExample, ['API_KEYS', JSON.stringify([{ id: 'admin', hash: hashApiKey(generateApiKey()), scopes: ['runs:read'] }])]]);
const compose: ComposeFile = interpolatedCompose(filledEnv);
const raw = readComposeFile();
/** The services that run the image built from the Dockerfile. */
const serviceNames = Object.keys(raw.services).filter((name) => raw.services[name]?.build !== undefined);

/** The variables an agents file under config/ names for its providers (`apiKeyEnv`, `baseUrlEnv`): the agents file, not the service, reads them. */
function providerKeyVariables(): Set<string> {
  const names = new Set<string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'apiKeyEnv' || key === 'baseUrlEnv') && typeof inner === 'string') names.add(inner);
        else collect(inner);
      }
    }
  };
  for (const file of readdirSync(join(REPO_ROOT, 'config')).filter((f) => /\.ya?ml$/.test(f))) collect(parse(readFileSync(join(REPO_ROOT, 'config', file), 'utf8')));
  return names;
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Where a service of the image keeps its tools' workspace: the folder, and the mount that holds it (the deepest one), if any. */
function workspaceMountOf(file: ComposeFile, service: string): { workspaceDir: string; mount: VolumeMount | undefined } {
  const { workspaceDir } = readServiceConfig(Object.fromEntries(containerEnvironment(file, service, dockerfile)), workdir);
  const holding = volumeMounts(file, service).filter((mount) => inside(workspaceDir, mount.target));
  return { workspaceDir, mount: holding.sort((a, b) => b.target.length - a.target.length)[0] };
}

/** The profile a service runs in (`default`: no profile, the plain `docker compose up`). */
const profileOf = (file: ComposeFile, service: string): string => (file.services[service]?.profiles ?? ['default']).join(',');

/**
 * Whatever process of a profile claims a run, its tools must find the files
 * the run's earlier steps wrote: every process of a profile keeps its
 * workspace in one named volume. What is not so, per profile, named.
 */
function profileWorkspaceProblems(file: ComposeFile): string[] {
  const problems: string[] = [];
  const services = Object.keys(file.services).filter((name) => file.services[name]?.build !== undefined);
  for (const profile of [...new Set(services.map((name) => profileOf(file, name)))]) {
    const members = services.filter((name) => profileOf(file, name) === profile).map((name) => ({ name, ...workspaceMountOf(file, name) }));
    for (const member of members.filter((m) => m.mount === undefined || !m.mount.named)) {
      problems.push(`profile ${profile}: ${member.name} keeps its workspace ${member.workspaceDir} in no named volume`);
    }
    const volumes = new Set(members.map((m) => m.mount?.source));
    if (volumes.size > 1) {
      problems.push(
        `profile ${profile}: ${members.map((m) => `${m.name} keeps its workspace ${m.workspaceDir} in volume ${m.mount?.source ?? '(none)'}`).join(', ')}: ` +
          'every process of a profile must mount one workspace volume there',
      );
    }
  }
  return problems;
}

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, on the same base image (better-sqlite3 is compiled for it)', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    const base = (stage: typeof image) => (stage[0]?.args ?? '').split(/\s+/)[0];
    expect(base(image)).toBe(base(buildStage));
    const buildRuns = buildStage.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(buildRuns.some((run) => /\bnpm ci\b/.test(run))).toBe(true);
    expect(buildRuns.some((run) => /\bnpm run build\b/.test(run))).toBe(true);
    expect(buildRuns.some((run) => /\bnpm prune --omit=dev\b/.test(run))).toBe(true);
    // The image installs nothing: no npm install, no compilers.
    const imageRuns = image.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(imageRuns.filter((run) => /\bnpm (ci|install|i)\b|apt-get install|\bg\+\+|\bpython3\b/.test(run))).toEqual([]);
  });

  it('runs on the Node.js major the test suites run on (the one the service is tested with), whatever tag is passed as NODE_IMAGE', () => {
    const from = (buildStage[0]?.args ?? '').split(/\s+/)[0] ?? '';
    expect(from).toBe('${NODE_IMAGE}');
    const defaultImage = /^NODE_IMAGE=(\S+)$/.exec(dockerfile.instructions.find((i) => i.name === 'ARG' && i.args.startsWith('NODE_IMAGE='))?.args ?? '')?.[1] ?? '';
    expect(defaultImage).toMatch(/^node:\d+-bookworm-slim$/);
    expect(defaultImage.split(':')[1]?.split('-')[0]).toBe(process.versions.node.split('.')[0]);
  });

  it('runs as a user that is not root, in an absolute WORKDIR, with its data folder a VOLUME owned by that user', () => {
    const user = lastOf(image, 'USER')?.args.split(':')[0] ?? 'root';
    expect(['root', '0', '']).not.toContain(user);
    expect(isAbsolute(workdir)).toBe(true);
    const dataDir = imageEnv.get('AGENT_LEDGER_DATA_DIR') as string;
    expect(isAbsolute(dataDir)).toBe(true);
    expect(execForm(lastOf(image, 'VOLUME')?.args ?? '[]', 'VOLUME')).toEqual([dataDir]);
    const chown = image.find((i) => i.name === 'RUN' && new RegExp(`chown\\s+${user}(:\\S+)?\\s+(\\S+\\s+)*${dataDir}\\b`).test(i.args));
    expect(chown).toBeDefined();
    // chown before USER (root can), VOLUME after it (later changes to a volume's folder would be lost).
    const at = (name: string) => image.findIndex((i) => i === lastOf(image, name));
    expect(image.indexOf(chown as never)).toBeLessThan(at('USER'));
    expect(at('VOLUME')).toBeGreaterThan(image.indexOf(chown as never));
  });

  it('binds every interface, in production mode, and EXPOSEs the port it listens on', () => {
    expect(imageEnv.get('HOST')).toBe('0.0.0.0');
    expect(imageEnv.get('NODE_ENV')).toBe('production');
    expect(lastOf(image, 'EXPOSE')?.args.split(/\s+/)).toContain(imageEnv.get('PORT'));
    const config = readServiceConfig(Object.fromEntries([...imageEnv, ['API_KEYS', filledEnv.get('API_KEYS') as string]]), workdir);
    expect({ host: config.host, port: String(config.port), dataDir: config.dataDir }).toEqual({ host: '0.0.0.0', port: imageEnv.get('PORT'), dataDir: imageEnv.get('AGENT_LEDGER_DATA_DIR') });
  });

  it('sets only variables the service knows', () => {
    expect([...imageEnv.keys()].filter((name) => !(SERVICE_ENVIRONMENT_VARIABLES as readonly string[]).includes(name))).toEqual([]);
  });

  it('starts node on the built service itself (no npm or npx wrapper, no install), a file npm run build makes', () => {
    expect(lastOf(image, 'ENTRYPOINT')).toBeUndefined();
    expect(cmd[0]).toBe('node');
    expect(cmd.filter((arg) => /\b(npm|npx|yarn|pnpm)\b/.test(arg))).toEqual([]);
    expect(cmd).toHaveLength(2);
    // apps/agent-ledger/dist/main.js: tsc -b compiles <package>/src/main.ts to <package>/dist/main.js.
    const match = /^(apps\/[^/]+)\/dist\/(.+)\.js$/.exec(cmd[1] as string);
    expect(match).not.toBeNull();
    const [, pkg, file] = match as unknown as [string, string, string];
    expect(existsSync(join(REPO_ROOT, pkg, 'src', `${file}.ts`))).toBe(true);
    const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, pkg, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: { rootDir: string; outDir: string } };
    expect(tsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    const rootBuild = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as { references: { path: string }[] };
    expect(rootBuild.references.map((r) => r.path)).toContain(`${pkg}/tsconfig.build.json`);
    if (existsSync(join(REPO_ROOT, pkg, 'dist'))) expect(existsSync(join(REPO_ROOT, cmd[1] as string))).toBe(true);
    // The build stage copies that package's dist/ into the image.
    expect(buildStage.some((i) => i.name === 'RUN' && i.args.includes(pkg) && i.args.includes('dist'))).toBe(true);
  });

  it('checks its health with node against a public GET route of the service, on PORT', () => {
    expect(healthcheck.command[0]).toBe('node');
    const script = healthcheck.command.join(' ');
    expect(script).toContain('process.env.PORT');
    expect(script).toContain('127.0.0.1');
    const path = /'(\/[a-z/-]*)'/.exec(script)?.[1];
    const routes = [HealthController, ReadinessController].flatMap((controller) =>
      Object.getOwnPropertyNames(controller.prototype)
        .map((name) => (controller.prototype as unknown as Record<string, unknown>)[name])
        .filter((handler): handler is object => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.GET)
        .filter((handler) => (Reflect.getMetadata(ROUTE_ACCESS, handler) as { kind: string } | undefined)?.kind === 'public')
        .map((handler) => `/${[Reflect.getMetadata(PATH_METADATA, controller) as string, Reflect.getMetadata(PATH_METADATA, handler) as string].join('/').replace(/\/+/g, '/').replace(/^\/|\/$/g, '')}`),
    );
    expect(routes).toEqual(expect.arrayContaining(['/health', '/ready']));
    expect(routes).toContain(path);
    for (const option of ['interval', 'timeout', 'start-period', 'retries']) expect(healthcheck.options.has(option)).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  const known = new Set<string>([...SERVICE_ENVIRONMENT_VARIABLES, ...providerKeyVariables()]);

  it('has the service on its embedded store by default; in the production profile, EventStoreDB and the service on it; in the postgres profile, PostgreSQL, the service and workers on it', () => {
    expect(serviceNames.sort()).toEqual(['agent-ledger', 'agent-ledger-esdb', 'agent-ledger-pg', 'agent-ledger-pg-worker']);
    expect(raw.services['agent-ledger']?.profiles).toBeUndefined();
    expect(raw.services['agent-ledger-esdb']?.profiles).toEqual(['production']);
    expect(raw.services.eventstore?.profiles).toEqual(['production']);
    for (const name of ['agent-ledger-pg', 'agent-ledger-pg-worker', 'postgres']) expect({ name, profiles: raw.services[name]?.profiles }).toEqual({ name, profiles: ['postgres'] });
  });

  it('refuses to start, naming API_KEYS, while .env still leaves it empty (as .env.example does)', () => {
    expect(envExample.get('API_KEYS')).toBe('');
    let error: unknown;
    try {
      interpolatedCompose(envExample);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InterpolationError);
    expect((error as InterpolationError).variable).toBe('API_KEYS');
    expect((error as Error).message).toContain('.env.example');
  });

  it('documents in .env.example every variable it reads, and reads every variable .env.example sets', () => {
    const used = new Set<string>();
    interpolatedCompose(filledEnv, used);
    expect([...used].sort()).toEqual([...envExample.keys()].sort());
    const lines = readFileSync(join(REPO_ROOT, '.env.example'), 'utf8').split('\n');
    for (const name of envExample.keys()) {
      const at = lines.findIndex((line) => line.startsWith(`${name}=`));
      expect({ name, commented: lines[at - 1]?.startsWith('#') }).toEqual({ name, commented: true });
    }
    expect(readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });

  describe.each(['agent-ledger', 'agent-ledger-esdb', 'agent-ledger-pg'])('service %s', (name) => {
    const service = compose.services[name] ?? {};
    const rawService = raw.services[name] ?? {};
    const env = containerEnvironment(compose, name, dockerfile);

    it('is built from the Dockerfile and runs its CMD (no command, no entrypoint, no install at start), restarts, and checks its health as the image does', () => {
      expect(service.build).toBe('.');
      expect(service.command).toBeUndefined();
      expect(service.entrypoint).toBeUndefined();
      expect(service.env_file).toBeUndefined();
      expect(service.restart).toMatch(/^(unless-stopped|always|on-failure)/);
      expect(service.healthcheck?.test).toEqual(['CMD', ...healthcheck.command]);
    });

    it('sets only variables the service knows (its configuration, or a provider key an agents file in config/ names)', () => {
      const names = Object.keys(service.environment ?? {});
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((variable) => !known.has(variable))).toEqual([]);
    });

    it('gives the service a configuration it accepts: every interface, API keys required and set', () => {
      const config = readServiceConfig(Object.fromEntries(env), workdir);
      expect(config.host).toBe('0.0.0.0');
      expect(config.auth.mode).toBe('api-keys');
      expect(config.auth.apiKeys.map((key) => key.id)).toEqual(['admin']);
      // Each variable without which the service refuses to start is required by the compose file itself (${NAME:?...}), never defaulted.
      for (const variable of Object.keys(service.environment ?? {})) {
        const without = Object.fromEntries([...env].filter(([key]) => key !== variable));
        let refused = false;
        try {
          readServiceConfig(without, workdir);
        } catch {
          refused = true;
        }
        if (refused) expect({ variable, value: rawService.environment?.[variable] }).toEqual({ variable, value: expect.stringMatching(new RegExp(`^\\$\\{${variable}:\\?.+\\}$`)) });
      }
    });

    it('publishes PORT on the host loopback', () => {
      const config = readServiceConfig(Object.fromEntries(env), workdir);
      const mappings = (service.ports ?? []).map(portMapping);
      expect(mappings).toHaveLength(1);
      expect(mappings[0]).toMatchObject({ hostIp: '127.0.0.1', containerPort: String(config.port) });
      expect(Number(mappings[0]?.hostPort)).toBeGreaterThan(0);
    });

    it('keeps all its data in a named volume at the image VOLUME, never in a folder of the host', () => {
      const config = readServiceConfig(Object.fromEntries(env), workdir);
      const mounts = volumeMounts(compose, name);
      expect(mounts.filter((mount) => !mount.named)).toEqual([]);
      const data = mounts.find((mount) => inside(config.dataDir, mount.target));
      expect(data?.target).toBe(execForm(lastOf(image, 'VOLUME')?.args ?? '[]', 'VOLUME')[0]);
      const files = [config.dataDir, config.eventStorePath, config.auditStorePath, config.workspaceDir, readModelsPath(config), auditGapSagaPath(config)];
      expect(files.filter((file): file is string => file !== null).filter((file) => !inside(file, data?.target ?? '/nowhere'))).toEqual([]);
    });
  });

  it('runs agent-ledger on its embedded store and agent-ledger-esdb on the eventstore service (TLS off as the node), each with its own volume and host port', () => {
    const embedded = readServiceConfig(Object.fromEntries(containerEnvironment(compose, 'agent-ledger', dockerfile)), workdir);
    const esdb = readServiceConfig(Object.fromEntries(containerEnvironment(compose, 'agent-ledger-esdb', dockerfile)), workdir);
    expect(embedded.eventStoreConnectionString).toBeNull();
    expect(esdb.eventStorePath).toBeNull();
    const url = new URL((esdb.eventStoreConnectionString as string).replace(/^esdb:/, 'http:'));
    const eventstore = compose.services.eventstore ?? {};
    expect(url.hostname).toBe('eventstore');
    expect((eventstore.ports ?? []).map(portMapping).map((p) => p.containerPort)).toContain(url.port);
    expect(url.searchParams.get('tls')).toBe(eventstore.environment?.EVENTSTORE_INSECURE === 'true' ? 'false' : 'true');
    expect(compose.services['agent-ledger-esdb']?.depends_on).toEqual({ eventstore: { condition: 'service_healthy' } });
    const volume = (service: string) => volumeMounts(compose, service).map((m) => m.source);
    expect(volume('agent-ledger')).not.toEqual(volume('agent-ledger-esdb'));
    const hostPort = (service: string) => portMapping(compose.services[service]?.ports?.[0] ?? '').hostPort;
    expect(hostPort('agent-ledger')).not.toBe(hostPort('agent-ledger-esdb'));
  });

  describe('service agent-ledger-pg-worker', () => {
    const worker = compose.services['agent-ledger-pg-worker'] ?? {};
    const env = containerEnvironment(compose, 'agent-ledger-pg-worker', dockerfile);

    it('runs the built CLI\'s worker verb with node (no npm, no install), on the same image, without the image\'s HTTP health check, without ports', () => {
      expect(worker.build).toBe('.');
      expect(worker.image).toBe(compose.services['agent-ledger-pg']?.image);
      const command = worker.command as string[];
      expect(command.slice(0, 3)).toEqual(['node', 'apps/agent-ledger/dist/cli/main.js', 'worker']);
      expect(command.filter((arg) => /\b(npm|npx|yarn|pnpm)\b/.test(arg))).toEqual([]);
      expect(existsSync(join(REPO_ROOT, 'apps/agent-ledger/src/cli/main.ts'))).toBe(true);
      expect(worker.entrypoint).toBeUndefined();
      expect(worker.ports ?? []).toEqual([]);
      expect((worker.healthcheck as { disable?: boolean } | undefined)?.disable).toBe(true);
      expect(worker.restart).toMatch(/^(unless-stopped|always|on-failure)/);
    });

    it('gets the configuration of agent-ledger-pg (the same database and schema), with only variables the service knows, and is one process a replica', () => {
      const known = new Set<string>([...SERVICE_ENVIRONMENT_VARIABLES, ...providerKeyVariables()]);
      expect(Object.keys(worker.environment ?? {}).filter((variable) => !known.has(variable))).toEqual([]);
      // The replicas are the scaling knob (--scale): no worker processes of their own.
      expect(worker.environment).toEqual({ ...compose.services['agent-ledger-pg']?.environment, WORKER_PROCESSES: '0' });
      const config = readServiceConfig(Object.fromEntries(env), workdir);
      expect(config.workerProcesses).toBe(0);
      expect(config.postgres?.connectionString).toBe(readServiceConfig(Object.fromEntries(containerEnvironment(compose, 'agent-ledger-pg', dockerfile)), workdir).postgres?.connectionString);
    });

    it('keeps its data in a named volume at the image VOLUME, not the one of agent-ledger-pg', () => {
      const mounts = volumeMounts(compose, 'agent-ledger-pg-worker');
      const volume = execForm(lastOf(image, 'VOLUME')?.args ?? '[]', 'VOLUME')[0];
      expect(mounts.filter((mount) => !mount.named)).toEqual([]);
      const data = mounts.filter((mount) => mount.target === volume);
      expect(data).toHaveLength(1);
      expect(data[0]?.source).not.toBe(volumeMounts(compose, 'agent-ledger-pg').find((mount) => mount.target === volume)?.source);
    });
  });

  describe('one workspace volume for every process of a profile', () => {
    it('mounts, in every process of each profile, one named volume at its workspace folder (the postgres profile: the service and its workers)', () => {
      expect(profileWorkspaceProblems(compose)).toEqual([]);
      const postgres = ['agent-ledger-pg', 'agent-ledger-pg-worker'].map((name) => workspaceMountOf(compose, name).mount?.source);
      expect(new Set(postgres).size).toBe(1);
      // Its own volume: not the data volume of either process (each keeps its stores and queue index apart).
      for (const name of ['agent-ledger-pg', 'agent-ledger-pg-worker']) {
        const dataVolume = volumeMounts(compose, name).find((mount) => mount.target === execForm(lastOf(image, 'VOLUME')?.args ?? '[]', 'VOLUME')[0])?.source;
        expect({ name, workspace: postgres[0] }).not.toEqual({ name, workspace: dataVolume });
      }
    });

    it('names a profile whose processes keep their workspaces in different volumes (a worker on its data volume only)', () => {
      const worker = compose.services['agent-ledger-pg-worker'] ?? {};
      const dataOnly = (worker.volumes ?? []).filter((entry) => volumeMounts({ ...compose, services: { w: { volumes: [entry] } } }, 'w')[0]?.target === '/var/lib/agent-ledger');
      const split: ComposeFile = { ...compose, services: { ...compose.services, 'agent-ledger-pg-worker': { ...worker, volumes: dataOnly } } };
      expect(profileWorkspaceProblems(split)).toEqual([
        'profile postgres: agent-ledger-pg keeps its workspace /var/lib/agent-ledger/workspace in volume agent-ledger-pg-workspace, ' +
          'agent-ledger-pg-worker keeps its workspace /var/lib/agent-ledger/workspace in volume agent-ledger-pg-worker-data: ' +
          'every process of a profile must mount one workspace volume there',
      ]);
    });

    it("has the image make each workspace mount point, owned by the service's user, so that a new volume mounted there is writable", () => {
      const user = lastOf(image, 'USER')?.args.split(':')[0] ?? 'root';
      const targets = new Set(Object.keys(compose.services).flatMap((name) => (compose.services[name]?.build === undefined ? [] : [workspaceMountOf(compose, name).mount?.target ?? ''])));
      for (const target of targets) {
        const escaped = target.replace(/[/.]/g, '\\$&');
        const made = image.find((i) => i.name === 'RUN' && new RegExp(`mkdir\\s+-p\\s+(\\S+\\s+)*${escaped}(\\s|$)`).test(i.args) && new RegExp(`chown\\s+${user}(:\\S+)?\\s+(\\S+\\s+)*${escaped}(\\s|$)`).test(i.args));
        expect({ target, made: made !== undefined }).toEqual({ target, made: true });
        expect(image.indexOf(made as never)).toBeLessThan(image.findIndex((i) => i === lastOf(image, 'USER')));
      }
    });
  });

  it('runs agent-ledger-pg and its workers on the postgres service: its host, port, user, password and database, once it is healthy', () => {
    const config = readServiceConfig(Object.fromEntries(containerEnvironment(compose, 'agent-ledger-pg', dockerfile)), workdir);
    expect(config.eventStorePath).toBeNull();
    expect(config.eventStoreConnectionString).toBeNull();
    const url = new URL(config.postgres?.connectionString ?? '');
    const postgres = compose.services.postgres ?? {};
    expect(url.protocol).toBe('postgresql:');
    expect(url.hostname).toBe('postgres');
    expect(url.port).toBe('5432'); // the image's port, reached on the compose network
    expect(decodeURIComponent(url.username)).toBe(postgres.environment?.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(postgres.environment?.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${postgres.environment?.POSTGRES_DB}`);
    for (const name of ['agent-ledger-pg', 'agent-ledger-pg-worker']) expect(compose.services[name]?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('runs PostgreSQL of a pinned major version, on disk in a named volume, with a health check, its port not published', () => {
    const postgres = compose.services.postgres ?? {};
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(postgres.ports ?? []).toEqual([]);
    const mounts = volumeMounts(compose, 'postgres');
    expect(mounts.every((mount) => mount.named)).toBe(true);
    expect(mounts.map((mount) => mount.target)).toEqual(['/var/lib/postgresql/data']);
    expect(postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(postgres.restart).toBeDefined();
    expect(Object.keys(postgres.environment ?? {}).sort()).toEqual(['POSTGRES_DB', 'POSTGRES_PASSWORD', 'POSTGRES_USER']);
  });

  it('runs a single EventStoreDB node of a pinned version, on disk in named volumes, with a health check', () => {
    const eventstore = compose.services.eventstore ?? {};
    expect(eventstore.image).toMatch(/^eventstore\/eventstore:\d+\.\d+/);
    expect(eventstore.environment).toMatchObject({ EVENTSTORE_CLUSTER_SIZE: '1', EVENTSTORE_INSECURE: 'true', EVENTSTORE_MEM_DB: 'false' });
    expect((eventstore.ports ?? []).map(portMapping)).toEqual([{ hostIp: '127.0.0.1', hostPort: '2113', containerPort: '2113' }]);
    const mounts = volumeMounts(compose, 'eventstore');
    expect(mounts.every((mount) => mount.named)).toBe(true);
    expect(mounts.map((mount) => mount.target)).toContain('/var/lib/eventstore');
    expect(eventstore.healthcheck?.test.join(' ')).toContain('/health/live');
    expect(eventstore.restart).toBeDefined();
  });
});

describe('.dockerignore', () => {
  it('keeps installs, builds, data, secrets and git out of the build context', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());
    for (const entry of ['**/node_modules', '**/dist', 'data', '.env', '.git']) expect(ignored).toContain(entry);
  });
});
