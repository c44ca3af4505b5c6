/**
 * The audio analysis hosting asks for, as a capability the composition root hands in
 * (build-services.ts implements it over the audio service): hosting never imports server/audio.
 */

/** A file the server holds, named by the sha256 of its bytes. */
export interface HeldAudioFile {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

/** `interactive`: someone waits for the answer; `background`: queued ahead of need (after a push), behind every interactive analysis. */
export type AudioPriority = 'interactive' | 'background';

/** The two answers the project view shows: /audio/v1/analyze's body and /audio/v1/waveform's (800 bins). */
export interface AudioAnswers {
  readonly analysis: Readonly<Record<string, unknown>>;
  readonly waveform: Readonly<Record<string, unknown>>;
}

/**
 * Analysis of held files on behalf of an owner (a project): answers are kept per content hash, and
 * `find` answers only what was analysed for that same owner, so nobody learns of an analysis by hash.
 */
export interface RepositoryAudio {
  /** The answers for content `sha256` analysed for `owner` before, or undefined. */
  find(owner: string, sha256: string): Promise<AudioAnswers | undefined>;
  /** Analyse the file for `owner`; rejects with an `unsupported-media` AppError when it is not audio. */
  analyse(owner: string, file: HeldAudioFile, priority: AudioPriority): Promise<AudioAnswers>;
}

/** The extensions the project view analyses (the decoders' formats). */
export const audioExtensions: ReadonlySet<string> = new Set(['.wav', '.aif', '.aiff', '.flac', '.mp3', '.ogg', '.m4a']);

/** Does the path name an audio file (by extension, case-insensitively)? */
export function isAudioPath(filePath: string): boolean {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot > 0 && audioExtensions.has(name.slice(dot));
}
