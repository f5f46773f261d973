FROM node:20.19-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.build.json && node -e "require('fs').writeFileSync('dist/.build-stamp', new Date().toISOString())"
ENV NODE_ENV=production PORT=3000
EXPOSE 3000
CMD ["node", "dist/src/main.js", "serve"]
