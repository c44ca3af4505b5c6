import { AppError } from '../../http/errors.js';

/**
 * A cursor over git output whose fields end in NUL (`-z`, `%x00`). A commit message may hold any byte
 * but NUL, and a path any byte but NUL, so records are read field by field, never split on a separator.
 */
export interface NulFields {
  /** The next field, up to its NUL; a last field with no NUL runs to the end, or throws when the reader is strict. */
  next(): string;
  /** The character at the cursor (undefined at the end), without moving. */
  peek(): string | undefined;
  /** Move past one character. */
  skip(): void;
  /** Move to the next `marker` (a record start); false, at the end, when there is none. */
  seek(marker: string): boolean;
  /** Whether the whole text has been read. */
  readonly done: boolean;
}

/** Read `text` field by field; `strict` refuses a last field that no NUL ends (git was cut short). */
export function readNulFields(text: string, strict: boolean): NulFields {
  let pos = 0;
  return {
    next() {
      const end = text.indexOf('\0', pos);
      if (end < 0 && strict) throw new AppError('unavailable', 'git printed an incomplete commit record');
      const value = text.slice(pos, end < 0 ? text.length : end);
      pos = end < 0 ? text.length : end + 1;
      return value;
    },
    peek: () => text[pos],
    skip() {
      pos++;
    },
    seek(marker) {
      const at = text.indexOf(marker, pos);
      pos = at < 0 ? text.length : at;
      return at >= 0;
    },
    get done() {
      return pos >= text.length;
    },
  };
}
