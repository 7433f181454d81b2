// Worker threads start from JavaScript: teach this thread TypeScript, then run the API server.
import { register } from 'tsx/esm/api';

register();
await import('./api-server-thread.ts');
