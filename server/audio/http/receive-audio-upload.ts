import type { IncomingMessage } from 'node:http';
import { receiveUpload, type ReceivedUpload, type UploadOptions } from '../../http/multipart.js';

/** What follows an upload while it arrives (EarlyAnalysis, EarlyAnalyses): fed its progress, stopped when it fails. */
export interface UploadFollower {
  readonly onFileProgress: NonNullable<UploadOptions['onFileProgress']>;
  cancel(): void;
}

/**
 * Receive an audio route's multipart `file` into the upload dir, `early` reading it as it grows; an
 * upload that fails (too large, malformed, cut off) stops `early` before the error goes on.
 */
export async function receiveAudioUpload(
  req: IncomingMessage,
  uploads: { readonly tmpDir: string; readonly maxBytes: number },
  early: UploadFollower,
): Promise<ReceivedUpload> {
  try {
    return await receiveUpload(req, {
      tmpDir: uploads.tmpDir,
      maxBytes: uploads.maxBytes,
      field: 'file',
      missingIssue: { loc: ['body', 'file'], msg: 'Field required', type: 'missing' },
      onFileProgress: early.onFileProgress,
    });
  } catch (error) {
    early.cancel();
    throw error;
  }
}
