import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Express } from 'express';
import { presentAudioError } from './audio/http/present.js';
import { createAudioRouter, type AudioDeps } from './audio/http/routes.js';
import { createRepositoryRouter, type RepositoryRouteDeps } from './hosting/git/repository-routes.js';
import { presentHostingError } from './hosting/present.js';
import { createHostingRouter, type HostingDeps } from './hosting/routes.js';
import { createLastResortErrorHandler } from './http/error-middleware.js';
import { continueUnlessHashFirst } from './http/expect-continue.js';
import { createHostCheck } from './http/host-check.js';
import { guiContentSecurityPolicy, setInertSecurityHeaders } from './http/security-headers.js';
import { rejectInvalidHost } from './http/request-host.js';

/** Everything createApp wires together; built by startServer, or by tests with a memory store. */
export interface AppDeps {
  readonly audio: AudioDeps;
  readonly hosting: HostingDeps;
  /** git over HTTP and project uploads, served at the root as GitLab does. */
  readonly repositories: RepositoryRouteDeps;
  /** The built renderer bundle to serve at `/`, or null when it has not been built. */
  readonly rendererDir: string | null;
  /** Host names the server answers to (the local API's DNS-rebinding defence); absent or null: any. */
  readonly allowedHosts?: readonly string[] | null;
  /** Express's `trust proxy` (whose X-Forwarded-For gives the client address); absent or null: none. */
  readonly trustProxy?: string | null;
}

/** Build the Express app: /audio/v1, /api/v4 and the renderer bundle. No I/O happens here. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('etag', false);
  // The client address keys the failed-authentication limit: behind a proxy, take it from the proxy.
  if (deps.trustProxy)
    app.set('trust proxy', /^\d+$/.test(deps.trustProxy) ? Number(deps.trustProxy) : deps.trustProxy === 'true' ? true : deps.trustProxy);
  // First, so every answer (API, git, uploads, errors, 404s) is nosniff and inert unless it opts out.
  app.use(setInertSecurityHeaders);
  // A malformed Host is refused before anything can build a link from it; the audio API answers
  // in its shape, everything else (git over HTTP and the GUI included) in GitLab's.
  app.use(rejectInvalidHost((req) => (req.path.startsWith('/audio/') ? presentAudioError : presentHostingError)));
  if (deps.allowedHosts) app.use(createHostCheck(deps.allowedHosts, deps.hosting.publicUrl));
  app.use(continueUnlessHashFirst);

  app.use('/audio/v1', createAudioRouter(deps.audio));
  app.use('/api/v4', createHostingRouter(deps.hosting));
  app.use('/api/v3', (_req, res) => {
    res.status(410).json({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });
  app.use(createRepositoryRouter(deps.repositories));

  const rendererDir = deps.rendererDir;
  if (rendererDir && existsSync(path.join(rendererDir, 'index.html'))) {
    app.use(express.static(rendererDir, { index: 'index.html', maxAge: '1h', setHeaders: setGuiFileHeaders }));
    // Client-side routes: any other GET that accepts HTML gets the app shell.
    app.get('/*splat', (req, res, next) => {
      if (!req.accepts('html')) return next();
      res
        .set({ 'Cache-Control': 'no-cache', 'Content-Security-Policy': guiContentSecurityPolicy })
        .sendFile(path.join(rendererDir, 'index.html'));
    });
  } else {
    app.get('/', (_req, res) => {
      res.type('text/plain').send('Cratehouse server is running. The GUI bundle is not built: run `npm run build`.\n');
    });
  }
  app.use((_req, res) => {
    res.status(404).json({ error: 'Not Found' });
  });
  // Never Express's HTML error page: each API's shape under its prefix, GitLab's elsewhere (git, uploads).
  const apis = [
    { prefix: '/audio/v1', present: presentAudioError },
    { prefix: '/api/v4', present: presentHostingError },
  ];
  app.use(createLastResortErrorHandler(apis, presentHostingError, deps.hosting.log));
  return app;
}

/** The GUI's own files run under the GUI's policy (a worker script is governed by its own response's). */
function setGuiFileHeaders(res: express.Response, file: string): void {
  res.setHeader('Content-Security-Policy', guiContentSecurityPolicy);
  if (file.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
}
