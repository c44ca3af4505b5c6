/** The kept /analyze answers of the labelled sets (written by analyze-sets.ts), and where they are. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AnalyzeResponse } from '../../server/audio/api-types.js';
import { cacheDir } from '../real-audio/packages.js';
import type { LabelledFile } from '../real-audio/sets.js';

/** One labelled file (with its label's rule, which the instrument family comes from) and its /analyze answer. */
export interface AnalysedFile extends LabelledFile {
  readonly analyze: AnalyzeResponse;
}

/** Where the answers are kept (in the real-audio cache, beside the sets they come from; never committed). v3: with the samples engine's timbre embedding (v2 had the timbre block without it, v1 neither; both are kept for comparison). */
export const analysedFile = path.join(cacheDir, 'similarity-analyze-v3.json');

/** The kept answers, or undefined when they have not been measured on this machine. */
export function findAnalysedSets(): AnalysedFile[] | undefined {
  if (!existsSync(analysedFile)) return undefined;
  return JSON.parse(readFileSync(analysedFile, 'utf8')) as AnalysedFile[];
}
