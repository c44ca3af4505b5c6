import { Readable } from 'node:stream';

/** The length of `n` bytes in base64 (with padding). */
export function base64Length(n: number): number {
  return 4 * Math.ceil(n / 3);
}

/**
 * A JSON document streamed around base64 content: `head` (JSON text up to the opening quote of the
 * content string), the bytes of `content` in base64 as they arrive, then `tail`. Memory stays at a
 * chunk whatever the size; a failing `content` fails the stream.
 */
export function streamBase64Json(head: string, content: Readable, tail: string): Readable {
  async function* generate(): AsyncGenerator<Buffer> {
    yield Buffer.from(head);
    let carry = Buffer.alloc(0);
    for await (const chunk of content) {
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      // Encode whole 3-byte groups only, so no padding appears mid-string.
      const whole = bytes.length - (bytes.length % 3);
      if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'));
      carry = Buffer.from(bytes.subarray(whole));
    }
    if (carry.length > 0) yield Buffer.from(carry.toString('base64'));
    yield Buffer.from(tail);
  }
  const out = Readable.from(generate(), { objectMode: false });
  out.on('close', () => content.destroy());
  return out;
}

/**
 * `JSON.stringify(fields)` without its closing brace, followed by `,"<key>":"`: the head of a
 * document whose last key is streamed. `after` is what follows the string (`"}` or more keys).
 */
export function jsonAround(
  fields: Readonly<Record<string, unknown>>,
  key: string,
  after: Readonly<Record<string, unknown>> = {},
): { readonly head: string; readonly tail: string } {
  const open = JSON.stringify(fields).slice(0, -1);
  const rest = JSON.stringify(after).slice(1);
  return { head: `${open}${open === '{' ? '' : ','}${JSON.stringify(key)}:"`, tail: rest === '}' ? '"}' : `",${rest}` };
}
