# chatgraph: a GraphQL gateway in front of a Zulip server.
#
#   docker build -t chatgraph .
#   docker run --rm -p 4000:4000 -e ZULIP_URL=https://chat.example.com chatgraph
#
# Two stages: `build` installs every dependency from the lockfile and compiles src/ to dist/;
# the runtime stage holds dist/ and the production dependencies only (no tsx, no TypeScript, no
# test tools), runs as the unprivileged `node` user, and starts node directly (no npm, no shell)
# so that SIGTERM reaches the gateway, which drains and exits 0 (docs/operations.md). The gateway
# handles SIGTERM and SIGINT itself, so it may run as PID 1; `docker run --init` adds tini anyway
# for the zombie reaping PID 1 otherwise owes.
#
# The build and start steps (npm ci, npm run build, npm ci --omit=dev, node dist/main.js,
# /health, a query, SIGTERM) run in test/deploy.test.ts without a container engine, and
# deploy/container-check.sh builds the image with podman; README, "What is tested here", says
# which parts are not tested.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
# Liveness of the process itself (readiness, which also checks the chat server, is /readiness).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const e = process.env; fetch('http://127.0.0.1:' + (e.METRICS_PORT || e.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
