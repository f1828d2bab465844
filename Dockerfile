# syntax=docker/dockerfile:1
# xtimer: one image, every role. Pick the roles per container with XTIMER_ROLES (or
# --roles=...); see docker-compose.yml and docs/operating.md.

# Node 24 is the active LTS (Node 20 reached its end of life in April 2026).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: compile TypeScript to dist/ (with the Lua scripts and SQL migrations)
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.client.json ./
COPY scripts ./scripts
COPY src ./src
COPY http ./http
COPY api ./api
COPY dashboard ./dashboard
COPY workers ./workers
COPY client ./client
COPY cli ./cli
RUN npm run build

# ---- runtime: production dependencies and the compiled code only (no tsx, no TypeScript)
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Inside a container the API must listen beyond loopback; override with HOST.
ENV HOST=0.0.0.0
# Processes without the api role serve /metrics and /healthz here (the health check asks it).
ENV METRICS_PORT=9464
EXPOSE 8081 9464
# The image's unprivileged user; the code and node_modules stay root-owned and read-only to it.
USER node
# /healthz on the api port, or on METRICS_PORT for the other roles (workers/healthcheck.ts).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/workers/healthcheck.js"]
# SIGTERM (docker stop) runs the ordered graceful shutdown; exec form so node gets it.
CMD ["node", "--max-semi-space-size=128", "dist/workers/main.js"]
