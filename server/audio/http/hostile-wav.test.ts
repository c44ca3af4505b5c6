import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { audioRouteSpecs, type AudioRouteSpec } from './route-specs.js';

// WAV headers with edge values, sent to every analysis route: each answer is a 2xx whose body is what
// the route's schema promises (finite numbers only), or a 4xx in the API's shape; never a 500.

const auth = { Authorization: 'Bearer admin-token' };
const uploadRoutes = (Object.values(audioRouteSpecs) as AudioRouteSpec[]).filter((s) => s.multipartFile && s.responses[200]?.schema);

interface WavFields {
  readonly tag?: number;
  readonly channels: number;
  readonly rate: number;
  readonly bits: number;
  readonly blockAlign?: number;
  /** The data chunk's declared size (default: the bytes present). */
  readonly declared?: number;
  readonly data: Buffer;
  /** WAVE_FORMAT_EXTENSIBLE with this channel mask and sub-format tag. */
  readonly extensible?: { readonly mask: number; readonly sub: number };
}

/** A RIFF/WAVE file with exactly these header fields, whatever they claim. */
function craftWav(f: WavFields): Buffer {
  const fmtLen = f.extensible ? 40 : 16;
  const fmt = Buffer.alloc(8 + fmtLen);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(fmtLen, 4);
  fmt.writeUInt16LE(f.extensible ? 0xfffe : (f.tag ?? 1), 8);
  fmt.writeUInt16LE(f.channels, 10);
  fmt.writeUInt32LE(f.rate >>> 0, 12);
  const blockAlign = f.blockAlign ?? Math.ceil((f.channels * f.bits) / 8);
  fmt.writeUInt32LE(((f.rate >>> 0) * blockAlign) >>> 0, 16);
  fmt.writeUInt16LE(blockAlign & 0xffff, 20);
  fmt.writeUInt16LE(f.bits, 22);
  if (f.extensible) {
    fmt.writeUInt16LE(22, 24);
    fmt.writeUInt16LE(f.bits, 26);
    fmt.writeUInt32LE(f.extensible.mask >>> 0, 28);
    fmt.writeUInt16LE(f.extensible.sub, 32);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(fmt, 34);
  }
  const dataHead = Buffer.alloc(8);
  dataHead.write('data', 0, 'ascii');
  dataHead.writeUInt32LE((f.declared ?? f.data.length) >>> 0, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + fmt.length + 8 + f.data.length, 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, dataHead, f.data, f.data.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** `bytes` of 16-bit noise and tone (deterministic). */
function pcm16(bytes: number): Buffer {
  const out = Buffer.alloc(bytes - (bytes % 2));
  let seed = 12345;
  for (let i = 0; i < out.length / 2; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    out.writeInt16LE(Math.round(8000 * Math.sin(i / 7) + ((seed >>> 16) % 4000) - 2000), i * 2);
  }
  return out;
}

/** Float32 samples: a tone, with `special` written at every 97th sample. */
function float32(samples: number, special: number): Buffer {
  const out = Buffer.alloc(samples * 4);
  for (let i = 0; i < samples; i++) out.writeFloatLE(i % 97 === 0 ? special : 0.5 * Math.sin(i / 9), i * 4);
  return out;
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface Answer {
  readonly route: string;
  readonly status: number;
  readonly text: string;
}

/** Post one file to every analysis route; check each answer's shape; return them. */
async function postEverywhere(wav: Buffer): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const spec of uploadRoutes) {
    const res = await app.fetch(`/audio/v1${spec.path}`, { method: 'POST', headers: auth, body: fileForm(wav, 'crafted.wav') });
    const text = await res.text();
    const answer = { route: spec.path, status: res.status, text };
    expect(res.status, `${spec.path}: ${text}`).toBeLessThan(500);
    expect(res.headers.get('content-type'), spec.path).toMatch(/^application\/json/);
    const body: unknown = JSON.parse(text);
    // 200 for an analysis; 201 for the library's POST /library/items (the file kept, its summary to come).
    if (res.status === 200 || res.status === 201) {
      expect(text, spec.path).not.toMatch(/NaN|Infinity/);
      const parsed = (spec.responses[res.status]!.schema as z.ZodType).safeParse(body);
      expect(parsed.success, `${spec.path}: ${parsed.error?.message ?? ''}`).toBe(true);
      expect(findNonFinite(body), spec.path).toBeUndefined();
    } else {
      expect(typeof (body as { detail?: unknown }).detail, `${spec.path}: ${text}`).not.toBe('undefined');
    }
    answers.push(answer);
  }
  return answers;
}

/** The path of a number that is not finite, or of a null where the schema let one through for NaN. */
function findNonFinite(value: unknown, at = ''): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : at;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = findNonFinite(v, `${at}.${k}`);
      if (found) return found;
    }
  }
  return undefined;
}

const refusedFor = (reason: RegExp) => (answers: Answer[]) => {
  for (const a of answers) {
    expect(a.status, `${a.route}: ${a.text}`).toBe(415);
    expect(a.text, a.route).toMatch(reason);
  }
};
const acceptedEverywhere = (answers: Answer[]) => {
  // The library keeps the file: 201 when new, 200 when that audio is already in the caller's library.
  for (const a of answers) expect(a.route === '/library/items' ? [200, 201] : [200], `${a.route}: ${a.text}`).toContain(a.status);
};

describe('sample rate and channel bounds', () => {
  const cases: [string, WavFields, (a: Answer[]) => void][] = [
    ['8000 Hz (the lower bound) is analysed', { channels: 1, rate: 8000, bits: 16, data: pcm16(8000 * 2 * 2) }, acceptedEverywhere],
    ['384000 Hz (the upper bound) is analysed', { channels: 1, rate: 384_000, bits: 16, data: pcm16(384_000 * 2 * 2) }, acceptedEverywhere],
    ['32 channels (the bound) are analysed', { channels: 32, rate: 8000, bits: 16, data: pcm16(8000 * 64 * 1) }, acceptedEverywhere],
    [
      '7999 Hz is refused',
      { channels: 1, rate: 7999, bits: 16, data: pcm16(40_000) },
      refusedFor(/sample rate 7999 Hz is outside .*8000–384000/),
    ],
    ['384001 Hz is refused', { channels: 1, rate: 384_001, bits: 16, data: pcm16(40_000) }, refusedFor(/sample rate 384001 Hz/)],
    ['10 MHz is refused', { channels: 1, rate: 10_000_000, bits: 16, data: pcm16(40_000) }, refusedFor(/sample rate 10000000 Hz/)],
    ['4294967295 Hz is refused', { channels: 1, rate: 0xffffffff, bits: 16, data: pcm16(40_000) }, refusedFor(/sample rate 4294967295 Hz/)],
    ['1 Hz is refused', { channels: 1, rate: 1, bits: 16, data: pcm16(40_000) }, refusedFor(/sample rate 1 Hz/)],
    [
      '33 channels are refused',
      { channels: 33, rate: 8000, bits: 16, data: pcm16(66 * 400) },
      refusedFor(/33 channels are outside .*1–32/),
    ],
    ['65535 channels are refused', { channels: 65_535, rate: 8000, bits: 8, blockAlign: 65_535, data: pcm16(40_000) }, refusedFor(/./)],
  ];
  for (const [label, fields, check] of cases) {
    it(label, async () => check(await postEverywhere(craftWav(fields))), 120_000);
  }
});

describe('malformed and hostile headers never give a 500', () => {
  const cases: [string, WavFields][] = [
    ['0 Hz', { channels: 1, rate: 0, bits: 16, data: pcm16(40_000) }],
    ['0 channels', { channels: 0, rate: 44_100, bits: 16, blockAlign: 2, data: pcm16(40_000) }],
    ['0 bits per sample', { channels: 1, rate: 44_100, bits: 0, blockAlign: 2, data: pcm16(40_000) }],
    ['7 bits per sample', { channels: 1, rate: 44_100, bits: 7, data: pcm16(40_000) }],
    ['12 bits per sample', { channels: 2, rate: 44_100, bits: 12, data: pcm16(40_000) }],
    ['64-bit integer PCM', { channels: 1, rate: 44_100, bits: 64, data: pcm16(40_000) }],
    ['an odd block align', { channels: 2, rate: 44_100, bits: 16, blockAlign: 3, data: pcm16(40_000) }],
    ['a data chunk larger than the file', { channels: 2, rate: 44_100, bits: 16, declared: 0x7fff0000, data: pcm16(40_000) }],
    ['a zero-length data chunk', { channels: 2, rate: 44_100, bits: 16, declared: 0, data: Buffer.alloc(0) }],
    ['a data chunk of one frame', { channels: 2, rate: 44_100, bits: 16, data: pcm16(4) }],
    [
      'extensible with every mask bit set',
      { channels: 2, rate: 48_000, bits: 16, extensible: { mask: 0xffffffff, sub: 1 }, data: pcm16(40_000) },
    ],
    [
      'extensible with mask 0 and 6 channels',
      { channels: 6, rate: 48_000, bits: 16, extensible: { mask: 0, sub: 1 }, data: pcm16(48_000) },
    ],
    [
      'extensible with an unknown sub-format',
      { channels: 2, rate: 48_000, bits: 16, extensible: { mask: 3, sub: 0x55 }, data: pcm16(40_000) },
    ],
    ['float WAV with NaN samples', { tag: 3, channels: 1, rate: 44_100, bits: 32, data: float32(44_100, Number.NaN) }],
    ['float WAV with +Infinity samples', { tag: 3, channels: 2, rate: 44_100, bits: 32, data: float32(44_100, Number.POSITIVE_INFINITY) }],
    ['float WAV with -Infinity samples', { tag: 3, channels: 1, rate: 44_100, bits: 32, data: float32(44_100, Number.NEGATIVE_INFINITY) }],
    ['float WAV with samples near the float maximum', { tag: 3, channels: 1, rate: 44_100, bits: 32, data: float32(44_100, 3e38) }],
    [
      'float WAV in extensible form with NaN',
      { channels: 1, rate: 44_100, bits: 32, extensible: { mask: 4, sub: 3 }, data: float32(44_100, Number.NaN) },
    ],
  ];
  for (const [label, fields] of cases) {
    it(
      label,
      async () => {
        await postEverywhere(craftWav(fields));
      },
      120_000,
    );
  }

  it('NaN and infinite samples are refused with the reason', async () => {
    for (const a of await postEverywhere(craftWav({ tag: 3, channels: 1, rate: 44_100, bits: 32, data: float32(44_100, Number.NaN) }))) {
      expect(a.status, a.route).toBe(415);
      expect(a.text, a.route).toMatch(/not finite/);
    }
  }, 120_000);
});
