# Headless Cratehouse: Debian slim + Node 20 + ffmpeg + git, running as a non-root user.
#   docker build -t cratehouse .
#   docker run -d --name cratehouse -p 8080:8080 -v cratehouse-data:/data cratehouse
# Configuration is the same CRATEHOUSE_* environment as `npm start` (README.md); the data dir is /data.
# NODE_IMAGE: the Node 20 base (scripts/compose/offline-images.sh builds a stand-in without Docker Hub).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# .npmrc keeps install scripts off: Electron's binary is not needed to build the server and the GUI.
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json tsconfig.build.json ./
COPY server ./server
COPY electron ./electron
COPY renderer ./renderer
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM ${NODE_IMAGE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg git ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/server ./dist/server
COPY --from=build /app/dist/renderer ./dist/renderer
RUN mkdir /data && chown node:node /data
ENV NODE_ENV=production \
    CRATEHOUSE_HOST=0.0.0.0 \
    CRATEHOUSE_PORT=8080 \
    CRATEHOUSE_DATA_DIR=/data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.CRATEHOUSE_PORT || 8080) + '/audio/v1/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini forwards SIGTERM, so `docker stop` lets in-flight requests and writes finish.
ENTRYPOINT ["/usr/bin/tini", "--"]
# V8 flags: see server/config/node-flags.ts.
CMD ["node", "--initial-old-space-size=64", "dist/server/main.js"]
