import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveFfmpeg } from './audio/decode/ffmpeg-path.js';
import type { SummaryResult } from './audio/engines/summary.js';
import { createAnalysisPool } from './audio/analysis/worker-pool.js';
import type { Config } from './config/load-config.js';

/** Extensions the batch picks up from folders (files named explicitly are always tried). */
const audioExtensions = new Set([
  '.wav',
  '.wave',
  '.aif',
  '.aiff',
  '.flac',
  '.mp3',
  '.ogg',
  '.oga',
  '.opus',
  '.m4a',
  '.aac',
  '.wma',
  '.caf',
]);

/** One row of the batch: the summary, or the error that stopped this file. */
export interface AnalyzeRow extends Partial<SummaryResult> {
  readonly file: string;
  readonly error: string | null;
  /** Where --rename-to copied the file. */
  readonly copied_to?: string;
}

export interface AnalyzeOptions {
  readonly format: 'table' | 'json' | 'csv';
  readonly renameTo: string | null;
  readonly out: (line: string) => void;
  /** Progress output (a terminal gets a bar); null for none. */
  readonly progress: NodeJS.WriteStream | null;
}

/** Files named, and audio files found recursively in folders named, in a stable order. */
export async function collectFiles(inputs: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (p: string, explicit: boolean): Promise<void> => {
    let s;
    try {
      s = await stat(p);
    } catch {
      found.push(p); // reported as a bad row
      return;
    }
    if (s.isDirectory()) {
      const entries = (await readdir(p)).sort((a, b) => a.localeCompare(b));
      for (const e of entries) if (!e.startsWith('.')) await walk(path.join(p, e), false);
    } else if (explicit || audioExtensions.has(path.extname(p).toLowerCase())) found.push(p);
  };
  for (const input of inputs) await walk(input, true);
  return found;
}

/**
 * `cratehouse analyze`: the same engines as the server, locally, on every core. One row per file
 * (role, tier, LUFS, true peak, tempo, key, suggested name); bad files are reported in their row.
 */
export async function runAnalyze(inputs: readonly string[], config: Config, options: AnalyzeOptions): Promise<number> {
  const files = await collectFiles(inputs);
  if (files.length === 0) throw new Error('no audio files found');
  const ffmpeg = await resolveFfmpeg(config.ffmpegPath);
  const pool = createAnalysisPool(2);
  const rows: AnalyzeRow[] = new Array<AnalyzeRow>(files.length);
  let done = 0;
  const draw = () => {
    if (!options.progress) return;
    const width = 30;
    const filled = Math.round((done / files.length) * width);
    options.progress.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${files.length}`);
  };
  draw();
  try {
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const i = next++;
        const file = files[i]!;
        try {
          const out = await pool.run({
            engineId: 'summary',
            params: { index: i + 1 },
            file,
            decoder: ffmpeg ? { kind: 'ffmpeg', path: ffmpeg.path } : { kind: 'js' },
          });
          rows[i] = { file, error: null, ...(out.result as SummaryResult) };
        } catch (error) {
          rows[i] = { file, error: error instanceof Error ? error.message : String(error) };
        }
        done++;
        draw();
      }
    };
    await Promise.all([worker(), worker()]);
  } finally {
    await pool.destroy();
    if (options.progress) options.progress.write('\n');
  }
  const final = options.renameTo ? await copyRenamed(rows, options.renameTo) : rows;
  render(final, options);
  return final.some((r) => r.error) ? 1 : 0;
}

/** Copy each analysed file to DIR/<suggested name><ext>, never overwriting (a suffix is added). */
async function copyRenamed(rows: readonly AnalyzeRow[], dir: string): Promise<AnalyzeRow[]> {
  await mkdir(dir, { recursive: true });
  const taken = new Set((await readdir(dir)).map((n) => n.toLowerCase()));
  const out: AnalyzeRow[] = [];
  for (const row of rows) {
    if (row.error || !row.name) {
      out.push(row);
      continue;
    }
    const ext = path.extname(row.file).toLowerCase();
    let candidate = `${row.name}${ext}`;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${row.name}-${n}${ext}`;
    taken.add(candidate.toLowerCase());
    await copyFile(row.file, path.join(dir, candidate));
    out.push({ ...row, copied_to: path.join(dir, candidate) });
  }
  return out;
}

const columns = ['file', 'role', 'tier', 'lufs', 'clip_lufs', 'true_peak_dbtp', 'tempo_bpm', 'key', 'name', 'error'] as const;

function render(rows: readonly AnalyzeRow[], options: AnalyzeOptions): void {
  if (options.format === 'json') {
    options.out(JSON.stringify(rows, null, 2));
    return;
  }
  const cell = (row: AnalyzeRow, c: (typeof columns)[number]) => {
    const v = (row as unknown as Record<string, unknown>)[c];
    return v === null || v === undefined ? '' : String(v);
  };
  if (options.format === 'csv') {
    const esc = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    options.out(columns.join(','));
    for (const row of rows) options.out(columns.map((c) => esc(cell(row, c))).join(','));
    return;
  }
  const widths = columns.map((c) => Math.min(48, Math.max(c.length, ...rows.map((r) => cell(r, c).length))));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.slice(0, widths[i]).padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  options.out(line([...columns]));
  for (const row of rows) options.out(line(columns.map((c) => cell(row, c))));
}
