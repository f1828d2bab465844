# syntax=docker/dockerfile:1
# xtimer: one image, every role. Pick the roles per container with XTIMER_ROLES (or
# --roles=...); see docker-compose.yml and README "Operating".

# ---- build: compile TypeScript to dist/ (with the Lua scripts and SQL migrations)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY api ./api
COPY dashboard ./dashboard
COPY workers ./workers
RUN npm run build

# ---- runtime: production dependencies and the compiled code only
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Inside a container the API must listen beyond loopback; override with HOST.
ENV HOST=0.0.0.0
EXPOSE 8081
USER node
# SIGTERM (docker stop) runs the ordered graceful shutdown; exec form so node gets it.
CMD ["node", "--max-semi-space-size=64", "dist/workers/main.js"]
