// Installs the bench-only peer dependencies (bench/peer/package.json) on first use. Built in issue 9.
