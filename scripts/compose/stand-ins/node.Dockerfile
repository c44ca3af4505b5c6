# Stand-in for node:20-bookworm-slim, built without Docker Hub: the Debian base made by
# offline-images.sh, this machine's own Node 20 and npm, and the `node` user (uid 1000) the official
# image has and the product's Dockerfile runs as. Node also trusts this machine's CA bundle, so that
# `npm ci` in the build works where the registry is reached through a TLS-inspecting proxy.
FROM cratehouse-offline/debian:bookworm
COPY host-ca.crt /usr/local/share/cratehouse-offline/host-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/cratehouse-offline/host-ca.crt
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version
CMD ["node"]
