// The test suite's fake OpenAI-compatible server in a process of its own (fixed prefill and
// per-token delays, a fixed number of slots), so each client measures the same server.
import { startFakeServer } from '../../test/helpers/fake-openai-server.ts';

const [slots, prefillMs, decodeMs] = process.argv.slice(2).map(Number);
const server = await startFakeServer({ slots, prefillMs, decodeMs });
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
