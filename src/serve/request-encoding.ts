// A request body sent compressed (`Content-Encoding: gzip` or `deflate`, as HTTP allows a
// client to send one): decoded before its JSON is parsed; it was read as it came and refused
// as "not valid JSON". The body limit holds for the decoded size, counted as it is inflated,
// so a small body that inflates past it (a zip bomb) stops there with 413. Any other coding
// is refused with 415: the server cannot read it.
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { ApiError } from './api-error.ts';

/** The codings kb serve decodes (x-gzip: HTTP's old name for gzip; deflate: the zlib format, RFC 9110). */
const DECODERS: Record<string, () => Gunzip | Inflate> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
};

/** A body stream as fastify's preParsing hook may return it: with the count of bytes received before decoding. */
export type DecodedBody = Readable & { receivedEncodedLength: number };

/**
 * `payload` decoded as its Content-Encoding says (`encoding`, the header's value), at most
 * `limit` bytes once decoded; as it is when it has none (or `identity`). Throws a 415 ApiError
 * for a coding kb does not decode.
 */
export function decodedRequestBody(encoding: string | undefined, payload: Readable, limit: number): Readable {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return payload;
  const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
  if (decoder === undefined) {
    throw new ApiError(415, `Content-Encoding "${encoding}" is not supported: send the body uncompressed, or compressed with gzip or deflate`);
  }
  const inflate = decoder();
  let decoded = 0;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      decoded += chunk.length;
      // Checked before the chunk is passed on, so inflating stops here rather than go on for
      // bytes fastify would drop: fastify's own limit counts only what it is handed.
      if (decoded > limit) done(new ApiError(413, `the request body is over the ${limit}-byte limit once decoded from ${coding}`));
      else done(null, chunk);
    },
  }) as Transform & DecodedBody;
  // fastify compares this with Content-Length, which counts the bytes as sent.
  body.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    body.receivedEncodedLength += chunk.length;
  });
  inflate.on('error', (error) => body.destroy(new ApiError(400, `the request body could not be decoded as ${coding}: ${error.message}`)));
  body.on('error', () => {
    // Not pipeline(): it would destroy the request, and its socket with it, before the error
    // is answered. The inflater stops; the rest of the body is read and dropped.
    payload.unpipe(inflate);
    inflate.destroy();
    payload.resume();
  });
  payload.pipe(inflate).pipe(body);
  return body;
}
