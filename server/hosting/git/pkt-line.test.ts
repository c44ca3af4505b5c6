import { describe, expect, it } from 'vitest';
import { FLUSH, PktLineSplitter, PushCommandReader, pktLine, ReportStatusReader } from './pkt-line.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(64);

/** Feed a buffer one byte at a time: every boundary a network could cut at. */
function byteByByte(bytes: Buffer, push: (b: Buffer) => unknown): void {
  for (let i = 0; i < bytes.length; i++) push(bytes.subarray(i, i + 1));
}

describe('PushCommandReader', () => {
  it('reads commands and capabilities across any chunk boundary, ignoring shallow lines and the pack', () => {
    const request = Buffer.concat([
      pktLine(`shallow ${A}\n`),
      pktLine(`${'0'.repeat(40)} ${A} refs/heads/main\0report-status side-band-64k agent=git/2.39\n`),
      pktLine(`${A} ${B} refs/tags/v1\n`),
      pktLine(`${C} ${'0'.repeat(64)} refs/heads/sha256-branch`), // newline is optional
      FLUSH,
      Buffer.from('PACK\0\0\0\x02 not parsed'),
    ]);
    const reader = new PushCommandReader();
    byteByByte(request, (b) => reader.push(b));
    expect(reader.done).toBe(true);
    expect(reader.commands).toEqual([
      { before: '0'.repeat(40), after: A, ref: 'refs/heads/main' },
      { before: A, after: B, ref: 'refs/tags/v1' },
      { before: C, after: '0'.repeat(64), ref: 'refs/heads/sha256-branch' },
    ]);
    expect([...reader.capabilities]).toEqual(['report-status', 'side-band-64k', 'agent=git/2.39']);
  });

  it('is not done before the flush, and gives up on framing that is not pkt-line', () => {
    const reader = new PushCommandReader();
    expect(reader.push(pktLine(`${A} ${B} refs/heads/x\n`))).toBe(false);
    expect(reader.commands).toHaveLength(1);
    const junk = new PushCommandReader();
    junk.push(Buffer.from('PACK this is not a command list'));
    expect(junk.failed).toBe(true);
    expect(junk.commands).toEqual([]);
  });
});

describe('ReportStatusReader', () => {
  const report = Buffer.concat([
    pktLine('unpack ok\n'),
    pktLine('ok refs/heads/main\n'),
    pktLine('ng refs/heads/old non-fast-forward\n'),
    pktLine('option refname refs/heads/main\n'),
    FLUSH,
  ]);

  it('reads a plain report', () => {
    const reader = new ReportStatusReader(false);
    byteByByte(report, (b) => reader.push(b));
    const result = reader.result();
    expect(result?.unpackOk).toBe(true);
    expect([...(result?.refs ?? [])]).toEqual([
      ['refs/heads/main', true],
      ['refs/heads/old', false],
    ]);
  });

  it('reads a report split over side-band packets, between progress on band 2', () => {
    const band = (n: number, data: Buffer) => pktLine(Buffer.concat([Buffer.from([n]), data]));
    const wire = Buffer.concat([
      band(2, Buffer.from('Resolving deltas: 100%\r')),
      band(1, report.subarray(0, 7)),
      band(2, Buffer.from('more progress\n')),
      band(1, report.subarray(7)),
      FLUSH,
    ]);
    const reader = new ReportStatusReader(true);
    byteByByte(wire, (b) => reader.push(b));
    expect([...(reader.result()?.refs ?? [])]).toEqual([
      ['refs/heads/main', true],
      ['refs/heads/old', false],
    ]);
  });

  it('has no result for a failed unpack or a report cut short', () => {
    const failed = new ReportStatusReader(false);
    failed.push(Buffer.concat([pktLine('unpack index-pack abnormal exit\n'), pktLine('ng refs/heads/main unpacker error\n'), FLUSH]));
    expect(failed.result()?.unpackOk).toBe(false);
    const cut = new ReportStatusReader(false);
    cut.push(report.subarray(0, report.length - 4));
    expect(cut.result()).toBeNull();
  });
});

describe('PktLineSplitter', () => {
  it('refuses lengths git never sends', () => {
    for (const bad of ['0003', '0004x', 'zzzz', 'fff1']) {
      const s = new PktLineSplitter();
      s.push(Buffer.from(bad));
      expect(s.failed, bad).toBe(bad !== '0004x');
    }
  });
});
