# eoscope's web app and CLI (workers) in one image.
#   docker build -t eoscope .
#   docker run -p 3000:3000 -e EOSCOPE_TOKEN=... eoscope
FROM node:24-bookworm-slim

ENV NEXT_TELEMETRY_DISABLED=1
RUN mkdir -p /app && chown node:node /app
WORKDIR /app
USER node

COPY --chown=node:node package.json package-lock.json ./
# The postinstall step applies patches/ to node_modules (patch-package).
COPY --chown=node:node patches ./patches
RUN npm ci --no-audit --no-fund

COPY --chown=node:node . .
RUN npm run build

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
EXPOSE 3000
CMD ["npm", "start"]
