import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';

/**
 * /docs: Swagger UI over /openapi.json, served from the installed swagger-ui-dist
 * (no CDN: the reference works on an offline machine).
 */
const assetsDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>xtimer API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/reference.js"></script>
</body>
</html>`;

/** The page's own script, a file like the others: the CSP runs no inline script. */
const REFERENCE = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout' });
`;

export function docsRoutes() {
  return new Hono()
    .get('/docs', (c) => c.html(PAGE))
    .get('/docs/assets/:file', async (c) => {
      const file = c.req.param('file');
      if (file === 'reference.js') {
        return c.body(REFERENCE, 200, { 'content-type': 'text/javascript; charset=utf-8' });
      }
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!type) return c.notFound();
      const body = await readFile(join(assetsDir, file));
      return c.body(body, 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
    });
}
