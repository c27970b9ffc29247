// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports that would make the domain impure: frameworks, drivers, streams, adapters. */
const forbiddenInDomain = [
  { group: ['@nestjs/*'], message: 'libs/domain is pure TypeScript: no NestJS.' },
  { group: ['@eventstore/*'], message: 'libs/domain must not know the EventStoreDB client.' },
  { group: ['rxjs', 'rxjs/*'], message: 'libs/domain is pure TypeScript: no rxjs.' },
  { group: ['better-sqlite3', '@grpc/*', 'google-protobuf'], message: 'libs/domain must not import a driver.' },
  {
    group: ['@agent-ledger/*', '!@agent-ledger/domain', '!@agent-ledger/domain/*'],
    message: 'libs/domain must not import another lib (adapters, runtime): dependencies point inwards.',
  },
  { group: ['**/event-store/**', '**/apps/**'], message: 'libs/domain must not import an adapter or an app.' },
];

export default tseslint.config(
  { ignores: ['**/dist/**', 'libs/http/console/**', 'node_modules/**', 'coverage/**', 'data/**', 'bench/results/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: forbiddenInDomain }],
    },
  },
  {
    // Specs may build fixed instants with Date.UTC; the domain's code may not read a clock.
    files: ['libs/domain/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/domain/src/testing/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'Time arrives as data in the domain: no clock reads.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Ids arrive as data in the domain: no random source.' },
        { object: 'Date', property: 'now', message: 'Time arrives as data in the domain: no clock reads.' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
  },
  {
    // The console runs in the browser: it may not reach for Node's modules. It talks to the service through the client only.
    files: ['apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', '@agent-ledger/*', '!@agent-ledger/client', '@nestjs/*'], message: 'The console is browser code: no Node modules, no server libraries (@agent-ledger/client is its client).' }] },
      ],
    },
  },
  {
    // The client package is dependency-free and runs in browsers: it imports its own files only.
    files: ['libs/client/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\.{1,2}/)', message: '@agent-ledger/client has no dependency and runs in browsers: import its own files only (no Node module, no package).' }] },
      ],
    },
  },
);
