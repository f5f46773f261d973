# Two stages: the build stage compiles with the dev dependencies; the runtime image holds only the
# compiled output and production dependencies, and runs as the unprivileged `node` user.
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY ui ./ui
COPY scripts/build-ui.js ./scripts/
RUN npx tsc -p tsconfig.build.json && node scripts/build-ui.js && node -e "require('fs').writeFileSync('dist/.build-stamp', new Date().toISOString())"

FROM node:20.19-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 REVEILLE_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY scripts/build-if-needed.js scripts/build-ui.js ./scripts/
COPY --from=build /app/dist ./dist
# The embedded store and dev keys live in REVEILLE_DATA_DIR; the app's own files stay read-only to it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
CMD ["node", "dist/src/main.js", "serve"]
