#!/usr/bin/env node
// kb runs from its TypeScript sources: tsx compiles them on first use and caches the result,
// so a clone needs no build step.
import module from 'node:module';
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`kb needs Node >= 22 (this is ${process.version}). Run: . scripts/node-env.sh\n`);
  process.exit(1);
}
// V8's compile cache roughly halves start-up once warm (Ink and React are large).
module.enableCompileCache?.();
// tsx would look for tsconfig.json in the working directory; kb's own holds its JSX setting.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/cli/main.ts');
