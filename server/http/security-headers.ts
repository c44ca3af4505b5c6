import type { NextFunction, Request, Response } from 'express';

// Every response starts out inert: nosniff, and a policy under which a document can run nothing and
// load nothing. Only the GUI's own files opt into a policy that runs script, and only its own.

/** The policy of every response that is neither the GUI nor user content (JSON, git, errors). */
export const inertContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox";

/**
 * The GUI's policy: script, workers and requests only from the server itself (no inline or eval'd
 * script); inline styles because wavesurfer puts a <style> in its shadow root; blob: for the local
 * file the waveform plays; images from anywhere over http(s) because badges point at other hosts.
 */
export const guiContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob:",
  "connect-src 'self' blob:",
  "worker-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Mark every response nosniff and inert; later handlers replace the policy where they must. */
export function setInertSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', inertContentSecurityPolicy);
  next();
}

/** Give the GUI's files (the app shell, its scripts and its worker) the GUI's policy. */
export function setGuiSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', guiContentSecurityPolicy);
  next();
}
