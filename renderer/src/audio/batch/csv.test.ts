import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from './csv';

describe('csvField', () => {
  it('leaves plain text and numbers alone', () => {
    expect(csvField('kick.wav')).toBe('kick.wav');
    expect(csvField(-14.25)).toBe('-14.25');
    expect(csvField(0)).toBe('0');
  });

  it('writes null, undefined and non-finite numbers as empty fields', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(Number.NEGATIVE_INFINITY)).toBe('');
  });

  it('quotes fields with commas, quotes, CR or LF and doubles the quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('"')).toBe('""""');
  });

  it('does not quote spaces, semicolons or leading zeros', () => {
    expect(csvField(' 01 kick; loud ')).toBe(' 01 kick; loud ');
  });
});

describe('toCsv', () => {
  it('ends every line, the last included, with CRLF', () => {
    expect(
      toCsv(
        ['file', 'lufs'],
        [
          ['a.wav', -9],
          ['b, "c".wav', null],
        ],
      ),
    ).toBe('file,lufs\r\na.wav,-9\r\n"b, ""c"".wav",\r\n');
  });

  it('writes only the header for no rows', () => {
    expect(toCsv(['a', 'b'], [])).toBe('a,b\r\n');
  });
});
