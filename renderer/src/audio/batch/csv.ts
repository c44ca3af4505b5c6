// CSV as RFC 4180 describes it: CRLF line ends, fields quoted when they hold a comma, a double
// quote, CR or LF, and quotes inside a quoted field doubled. Spreadsheets read it as is.

/** One value as a CSV field: null and undefined become an empty field, numbers are written as is. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line and one line per row, every line ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  return [header, ...rows].map((fields) => `${fields.map(csvField).join(',')}\r\n`).join('');
}
