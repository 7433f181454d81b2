// A server that answers every completion at once: one SSE chunk of text, the usage chunk,
// [DONE]. Run in its own process by run.ts, so the client's CPU time is the client's alone.
import { createServer } from 'node:http';

const chunk = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
const reply =
  chunk({ id: 'cmpl-0', object: 'text_completion', created: 0, model: 'gpt2', choices: [{ index: 0, text: ' x', logprobs: null, finish_reason: 'length', stop_reason: null }], usage: null }) +
  chunk({ id: 'cmpl-0', object: 'text_completion', created: 0, model: 'gpt2', choices: [], usage: { prompt_tokens: 8, total_tokens: 9, completion_tokens: 1 } }) +
  'data: [DONE]\n\n';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"gpt2","object":"model"}]}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
