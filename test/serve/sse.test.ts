import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseWriter } from '../../src/serve/sse.ts';

/** What the socket handed to the kernel, one entry per write (a writev's pieces joined). */
function recordWrites(socket: Socket): string[] {
  const writes: string[] = [];
  const piece = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
  const s = socket as unknown as { _write: (chunk: unknown, ...a: unknown[]) => void; _writev: (chunks: { chunk: unknown }[], ...a: unknown[]) => void };
  const write = s._write.bind(socket);
  const writev = s._writev.bind(socket);
  s._write = (chunk: unknown, ...rest: unknown[]) => {
    writes.push(piece(chunk));
    write(chunk, ...rest);
  };
  s._writev = (chunks: { chunk: unknown }[], ...rest: unknown[]) => {
    writes.push(chunks.map((c) => piece(c.chunk)).join(''));
    writev(chunks, ...rest);
  };
  return writes;
}

let close: (() => void) | null = null;
afterEach(() => close?.());

/** Runs `respond` as a server's handler and returns the body the client read and the server socket's writes. */
async function exchange(respond: (sse: SseWriter, res: ServerResponse) => Promise<void>): Promise<{ body: string; writes: string[] }> {
  let writes: string[] = [];
  const server = createServer((_req, res) => {
    writes = recordWrites(res.socket!);
    void respond(new SseWriter(res), res);
  });
  close = () => server.close();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
  return { body, writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SseWriter', () => {
  it('sends each event as it comes, and the held last events, [DONE] and the end of the response in one write', async () => {
    const { body, writes } = await exchange(async (sse) => {
      sse.sendJson('{"n":1}');
      await tick();
      sse.sendJson('{"n":2}');
      await tick();
      sse.holdUntilEnd();
      sse.sendJson('{"n":3}');
      await tick();
      sse.send({ usage: 4 });
      sse.end();
    });
    expect(body).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: {"usage":4}\n\ndata: [DONE]\n\n');
    expect(writes).toHaveLength(3);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n[0-9a-f]+\r\ndata: \{"n":1\}\n\n\r\n$/);
    expect(writes[1]).toMatch(/^[0-9a-f]+\r\ndata: \{"n":2\}\n\n\r\n$/);
    // The chunked encoding's terminator (0 CRLF CRLF) rides on the last write.
    expect(writes[2]).toMatch(/^[0-9a-f]+\r\ndata: \{"n":3\}\n\ndata: \{"usage":4\}\n\ndata: \[DONE\]\n\n\r\n0\r\n\r\n$/);
  });

  it('ends a stream whose only event was held (one token) in one write, headers included', async () => {
    const { body, writes } = await exchange(async (sse) => {
      sse.holdUntilEnd();
      sse.sendJson('{"n":1}');
      sse.end();
    });
    expect(body).toBe('data: {"n":1}\n\ndata: [DONE]\n\n');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream[\s\S]*\r\n0\r\n\r\n$/);
  });

  it('sends nothing once the response has ended', async () => {
    const { body } = await exchange(async (sse) => {
      sse.sendJson('{"n":1}');
      sse.end();
      expect(sse.closed).toBe(true);
      sse.sendJson('{"n":2}');
      sse.end();
    });
    expect(body).toBe('data: {"n":1}\n\ndata: [DONE]\n\n');
  });
});
