import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/**
 * The console's build: a static bundle in `libs/http/console/` (shipped in the `@agent-ledger/http` package), served by the
 * service under `/console/`. No inline script or style ends up in the HTML
 * (the service's Content-Security-Policy forbids both), and nothing is
 * loaded from another origin.
 */
export default defineConfig({
  root: __dirname,
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  // The client is bundled from its sources (plain, dependency-free TypeScript): its build is CommonJS for Node, and nothing needs to be built first.
  resolve: { alias: { '@agent-ledger/client': resolve(__dirname, '../../libs/client/src/index.ts') } },
  build: {
    outDir: resolve(__dirname, '../../libs/http/console'),
    emptyOutDir: true,
    // The polyfill for <link rel=modulepreload> would be an inline script; every browser we target has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: true,
  },
  server: {
    // `npm run console:dev`: the service on :3000 answers the API.
    proxy: Object.fromEntries(['/runs', '/events', '/approvals', '/audit', '/projections', '/me', '/agents', '/health', '/ready'].map((p) => [p, 'http://127.0.0.1:3000'])),
  },
});
