# Portico's image: Debian bookworm-slim, Debian's nginx + Lua packages from bookworm-security, Node.js 24 (LTS),
# Portico's built output and production dependencies only, run as the unprivileged user portico (10001).
#   docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD) -t portico:0.1.0 .
# The root filesystem this describes is built without a container engine and tested by test/deploy/image.test.ts
# (scripts/image-rootfs.sh runs the same image/install.sh and scripts/image-app.sh); see docs/install.md.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY bin bin
COPY lua lua
COPY njs njs
COPY static static
COPY src src
COPY scripts/image-app.sh scripts/
RUN npx tsc -p tsconfig.json
ARG GIT_COMMIT=unknown
RUN GIT_COMMIT=$GIT_COMMIT bash scripts/image-app.sh /app

FROM debian:bookworm-slim
COPY image/install.sh image/packages.txt /tmp/image/
RUN sh /tmp/image/install.sh && rm -rf /tmp/image
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /app /app
ENV NODE_ENV=production
# glibc's malloc keeps freed memory of a thread's arena once a large buffer's free has raised its thresholds (a sync's
# messages between threads, 10-20 MiB at 10,000 Ingresses): a fixed trim threshold gives it back (docs/adr/0058).
ENV MALLOC_TRIM_THRESHOLD_=131072
USER 10001:10001
# The Deployment (deploy/base) mounts an emptyDir on /tmp and runs with a read-only root filesystem.
ENTRYPOINT ["/usr/local/bin/node", "/app/bin/portico.js"]
