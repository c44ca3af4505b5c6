import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { probeTool } from '../../http/tool-probe.js';
import type { ToolInfo } from '../../http/tool-probe.js';

/** Where an ffmpeg candidate came from. */
export type FfmpegSource = 'config' | 'ffmpeg-static' | 'path';

/**
 * Find ffmpeg: CRATEHOUSE_FFMPEG (explicit, must work) → the ffmpeg-static package's binary (present
 * only where it could be downloaded) → `ffmpeg` on PATH. Null when none runs.
 */
export async function resolveFfmpeg(configured: string | null): Promise<(ToolInfo & { readonly source: FfmpegSource }) | null> {
  const candidates: { path: string; source: FfmpegSource }[] = [];
  if (configured) candidates.push({ path: configured, source: 'config' });
  else {
    const bundled = ffmpegStaticPath();
    if (bundled) candidates.push({ path: bundled, source: 'ffmpeg-static' });
    candidates.push({ path: 'ffmpeg', source: 'path' });
  }
  for (const candidate of candidates) {
    const line = await probeTool(candidate.path, '-version');
    if (line !== null) return { path: candidate.path, version: /ffmpeg version (\S+)/.exec(line)?.[1] ?? line, source: candidate.source };
  }
  return null;
}

function ffmpegStaticPath(): string | null {
  try {
    const found: unknown = createRequire(import.meta.url)('ffmpeg-static');
    return typeof found === 'string' && existsSync(found) ? found : null;
  } catch {
    return null;
  }
}
