/** The dependency rules of docs/architecture.md (from ARCHITECTURE.md), checked in `npm test`. */
module.exports = {
  forbidden: [
    {
      name: 'server-is-host-agnostic',
      comment: 'server/ never imports electron/, renderer/ or e2e/.',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^(electron|renderer|e2e)/' },
    },
    {
      name: 'electron-uses-the-composition-root-only',
      comment: 'electron/ imports only server/start-server and server/config from the server.',
      severity: 'error',
      from: { path: '^electron/' },
      to: { path: '^server/', pathNot: '^server/(start-server\\.ts|config/)' },
    },
    {
      name: 'audio-and-hosting-are-independent',
      comment: 'Shared needs go down into http/ auth/ store/ queue/.',
      severity: 'error',
      from: { path: '^server/audio/' },
      to: { path: '^server/hosting/' },
    },
    {
      name: 'hosting-and-audio-are-independent',
      severity: 'error',
      from: { path: '^server/hosting/' },
      to: { path: '^server/audio/' },
    },
    {
      name: 'shared-serves-both-services',
      comment: 'server/shared (tar archives, byte sizes) is below audio and hosting: it imports neither.',
      severity: 'error',
      from: { path: '^server/shared/' },
      to: { path: '^server/(audio|hosting)/' },
    },
    {
      name: 'dsp-is-pure',
      comment: 'server/audio/dsp imports only itself (no node built-ins, no packages).',
      severity: 'error',
      from: { path: '^server/audio/dsp/' },
      to: { pathNot: '^server/audio/dsp/' },
    },
    {
      name: 'dsp-reference-is-for-tests',
      comment:
        'server/audio/dsp/reference holds the JavaScript twins of the WebAssembly kernels, which the tests compare them with: only tests (and the references themselves) import it, so nothing that answers a request runs them.',
      severity: 'error',
      from: { pathNot: ['\\.test\\.ts$', '^server/audio/dsp/reference/'] },
      to: { path: '^server/audio/dsp/reference/' },
    },
    {
      name: 'audio-engines-are-pure-analysis',
      comment:
        'server/audio/engines (one file per engine, its schema, the engine contract) imports only itself, dsp/ and packages: no HTTP, service, decode or store.',
      severity: 'error',
      from: { path: '^server/audio/engines/', pathNot: '\\.test\\.ts$' },
      to: { path: '^server/', pathNot: '^server/audio/(engines|dsp)/' },
    },
    {
      name: 'similarity-is-pure',
      comment:
        'The similarity vector and index (server/audio/library/feature-vector*.ts, similarity-index.ts) import only the wire types of server/audio/api-types.ts and each other: no I/O, packages, express, service or store.',
      severity: 'error',
      from: { path: '^server/audio/library/(feature-vector|feature-vector-norms|similarity-index)\\.ts$' },
      to: {
        pathNot: ['^server/audio/api-types\\.ts$', '^server/audio/library/(feature-vector|feature-vector-norms|similarity-index)\\.ts$'],
      },
    },
    {
      name: 'audio-layers-point-down',
      comment: 'audio/http → analysis, sources, artifacts → decode → engines → dsp; nothing below imports the HTTP edge or the service.',
      severity: 'error',
      from: { path: '^server/audio/(analysis|decode|sources|artifacts|library)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^server/audio/http/' },
    },
    {
      name: 'audio-decode-is-below-the-service',
      severity: 'error',
      from: { path: '^server/audio/decode/', pathNot: '\\.test\\.ts$' },
      to: { path: '^server/audio/(analysis|sources|artifacts)/' },
    },
    {
      name: 'only-routes-import-express',
      comment: 'In a service, only the HTTP layer (routes.ts, <family>-routes.ts, hosting/request.ts) imports express.',
      severity: 'error',
      from: { path: '^server/(audio|hosting)/', pathNot: '(^|/)[a-z-]*routes\\.ts$|^server/hosting/request\\.ts$|\\.test\\.ts$' },
      to: { path: '(^|/)node_modules/(@types/)?express/' },
    },
    {
      name: 'only-repositories-touch-the-store',
      comment:
        'Only *-repo.ts modules (and the composition roots: start-server, build-services; the CLI: cli, cli-store) import server/store.',
      severity: 'error',
      from: {
        path: '^server/',
        pathNot:
          '^server/store/|-repo\\.ts$|\\.test\\.ts$|/test-support/|^server/(start-server|build-services|app|cli|cli-store|main)\\.ts$',
      },
      to: { path: '^server/store/', pathNot: '^server/store/schema\\.ts$' },
    },
    {
      name: 'hosting-routes-go-through-services',
      comment: 'Hosting route files (routes.ts, <family>-routes.ts, request.ts) reach records through services, never a *-repo.ts module.',
      severity: 'error',
      from: { path: ['^server/hosting/[a-z-]*(routes|request)[.]ts$', '^server/hosting/[a-z-]+/[a-z-]*routes[.]ts$'] },
      to: { path: '-repo\\.ts$' },
    },
    {
      name: 'repos-stay-in-their-folder',
      comment:
        "A *-repo.ts is imported only from its own folder and by the composition (build-services, cli, set-up-hosting). Other folders reach those records through that folder's services, or through the stores set-up-hosting hands them (ProjectStores); services keep their repos private, so no field is a side door.",
      severity: 'error',
      from: {
        path: '^(server/.+)/[^/]+$',
        pathNot: '\\.test\\.ts$|/test-support/|^server/(build-services|cli)\\.ts$|^server/hosting/set-up-hosting\\.ts$',
      },
      to: { path: '-repo\\.ts$', pathNot: '^$1/[^/]+$' },
    },
    {
      name: 'renderer-types-only-from-api-types',
      comment: 'renderer/ may import (types only) from server/*/api-types.ts; nothing else from server/.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^server/', pathNot: '^server/[^/]+/api-types\\.ts$' },
    },
    {
      name: 'renderer-api-types-are-type-only',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-bridge-type-only-from-electron-channels',
      comment: 'renderer/ may import (types only) the desktop bridge contract, electron/ipc/channels.ts; nothing else from electron/.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^electron/', pathNot: '^electron/ipc/channels\\.ts$' },
    },
    {
      name: 'renderer-bridge-contract-is-type-only',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^electron/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    exclude: { path: '(^|/)dist/' },
  },
};
