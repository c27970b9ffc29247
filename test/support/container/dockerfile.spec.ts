import { execForm, healthcheckOf, lastOf, parseDockerfile, stageEnvironment } from './dockerfile';

const TEXT = `# syntax=docker/dockerfile:1
ARG BASE=node:22
FROM \${BASE} AS build
RUN apt-get update \\
 # a comment inside
 && echo done
FROM \${BASE}
ENV A=1 \\
    B="two words"
ENV LEGACY some value
USER node
HEALTHCHECK --interval=5s --retries=3 \\
  CMD ["node", "-e", "process.exit(0)"]
CMD ["node", "main.js"]
`;

describe('parseDockerfile', () => {
  const file = parseDockerfile(TEXT);

  it('joins continued lines, drops comments and splits the stages at FROM', () => {
    expect(file.instructions.map((i) => i.name)).toEqual(['ARG', 'FROM', 'RUN', 'FROM', 'ENV', 'ENV', 'USER', 'HEALTHCHECK', 'CMD']);
    expect(file.instructions[2]).toEqual({ name: 'RUN', args: 'apt-get update && echo done', line: 4 });
    expect(file.stages.map((stage) => stage.length)).toEqual([2, 6]);
  });

  it('reads a stage environment, USER, HEALTHCHECK and CMD', () => {
    const image = file.stages[1] ?? [];
    expect(Object.fromEntries(stageEnvironment(image))).toEqual({ A: '1', B: 'two words', LEGACY: 'some value' });
    expect(lastOf(image, 'USER')?.args).toBe('node');
    const health = healthcheckOf(lastOf(image, 'HEALTHCHECK') as never);
    expect({ options: Object.fromEntries(health.options), command: health.command }).toEqual({ options: { interval: '5s', retries: '3' }, command: ['node', '-e', 'process.exit(0)'] });
    expect(execForm(lastOf(image, 'CMD')?.args ?? '', 'CMD')).toEqual(['node', 'main.js']);
  });

  it('refuses a shell-form command', () => {
    expect(() => execForm('npm start', 'CMD')).toThrow('CMD is not in exec form');
  });
});
