# syntax=docker/dockerfile:1
#
# The agent-ledger service in a container. Use it through docker-compose.yml
# (`docker compose up -d`, README "Run it in a container"), or alone:
#   docker build -t agent-ledger .
#   docker run -p 127.0.0.1:3000:3000 -e API_KEYS='[...]' -v agent-ledger-data:/var/lib/agent-ledger agent-ledger
# test/workspace/container.spec.ts and test/e2e/container.e2e-spec.ts check this file.

# One base image for both stages: better-sqlite3 is a native module, built (or
# fetched prebuilt) in the build stage for this image's glibc and Node.js ABI,
# and copied as it is into the runtime stage. Node.js 20, the major the test
# suites run on (test/workspace/container.spec.ts checks it).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Compilers for better-sqlite3 when no prebuilt binary fits; they stay in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
RUN npm run build
# The runtime's files, in /out: the production dependencies (the workspace's
# packages linked as npm linked them; a package's own node_modules where npm
# nested one there, as it does @opentelemetry/context-async-hooks under
# apps/agent-ledger), each package's package.json and dist/,
# the console's build and the example agents. No sources, no dev dependencies.
RUN npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p /out \
 && cp -a package.json node_modules config /out/ \
 && for dir in libs/* apps/agent-ledger; do mkdir -p "/out/$dir" && cp -a "$dir/package.json" "$dir/dist" "/out/$dir/" \
      && if [ -d "$dir/node_modules" ]; then cp -a "$dir/node_modules" "/out/$dir/"; fi; done \
 && cp -a libs/http/console /out/libs/http/console \
 && find /out/libs /out/apps \( -name '*.map' -o -name '*.tsbuildinfo' \) -delete

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    AGENT_LEDGER_DATA_DIR=/var/lib/agent-ledger
WORKDIR /app
# The program belongs to root and is read-only for the service's user.
COPY --from=build /out /app
# The data folder and the tools' workspace in it belong to the service's
# user; a new named volume mounted at either (docker-compose.yml mounts a
# workspace volume shared by a profile's processes) takes its owner from the image.
RUN mkdir -p /var/lib/agent-ledger/workspace && chown node:node /var/lib/agent-ledger /var/lib/agent-ledger/workspace
USER node
VOLUME ["/var/lib/agent-ledger"]
EXPOSE 3000
# Healthy when GET /ready answers 200: the stores answer and the read models
# are caught up. Node.js itself makes the request (the slim image has no curl).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is the container's main process, so `docker stop`'s SIGTERM
# reaches the service (npm and npx do not pass it on): it stops its workers,
# closes its stores and exits 0.
CMD ["node", "apps/agent-ledger/dist/main.js"]
