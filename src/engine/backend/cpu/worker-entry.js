// Workers start from plain JavaScript: registering tsx here lets worker.ts load the same way
// under vitest, under the CLI and when kb is installed as a package.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
