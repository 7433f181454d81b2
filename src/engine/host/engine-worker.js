// Worker threads start from JavaScript: teach this thread TypeScript, then run the step loop.
import { register } from 'tsx/esm/api';

register();
await import('./engine-worker.ts');
