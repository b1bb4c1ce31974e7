// The web console: a Preact application in web/, bundled by esbuild from the project's own sources
// when the service starts (no CDN, nothing fetched at run time) and served by this process at `/`,
// beside the API under /api. Assets have content hashes in their names and are cached for a year;
// the page itself is never cached and carries the configuration the browser needs to sign in.
//
// Who may open it:
//  - identity-provider mode: anyone; the page signs in against the provider (Identity Toolkit
//    REST protocol, IDP_WEB_API_KEY) and sends bearer tokens;
//  - service API key only: the operator types the key, which the page keeps for the tab's life;
//    the key is never written into the page;
//  - local development mode (no identity provider): loopback clients only, under a standing banner,
//    since every request acts as the one local user.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sourceDir = path.join(projectRoot, 'web');
/** Client-side routes answered with the page (the application routes inside it). */
const PAGES = ['/', '/calls', '/calls/:id', '/actions', '/contacts', '/search', '/analytics', '/account', '/admin', '/sign-in'];

export interface ConsoleBuild {
  dir: string;
  /** Asset file names (under /assets/) the page loads. */
  script: string;
  style: string;
}

function sourceHash(): string {
  const hash = crypto.createHash('sha256');
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        hash.update(path.relative(sourceDir, p));
        hash.update(fs.readFileSync(p));
      }
    }
  };
  walk(sourceDir);
  // A dependency upgrade changes the bundle too.
  hash.update(fs.readFileSync(path.join(projectRoot, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Bundles web/ into dist/console/<hash of the sources> unless that build exists. Concurrent
 * processes (tests) build into their own temporary folder and the first rename wins.
 */
export async function buildConsole(): Promise<ConsoleBuild> {
  const root = path.join(projectRoot, 'dist', 'console');
  const dir = path.join(root, sourceHash());
  const manifest = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifest)) return { dir, ...JSON.parse(fs.readFileSync(manifest, 'utf8')) };
  fs.mkdirSync(root, { recursive: true });
  const building = fs.mkdtempSync(path.join(root, 'building-'));
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(sourceDir, 'main.tsx')],
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['es2022'],
    minify: true,
    sourcemap: false,
    outdir: path.join(building, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, o]) => o.entryPoint?.endsWith('main.tsx'));
  if (!entry) throw new Error('console build produced no entry');
  const script = path.basename(entry[0]);
  const style = entry[1].cssBundle ? path.basename(entry[1].cssBundle) : '';
  // Precompressed copies: @fastify/static serves them to clients that accept them.
  for (const f of fs.readdirSync(path.join(building, 'assets'))) {
    const p = path.join(building, 'assets', f);
    const body = fs.readFileSync(p);
    fs.writeFileSync(`${p}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
    fs.writeFileSync(`${p}.gz`, zlib.gzipSync(body, { level: 9 }));
  }
  fs.writeFileSync(path.join(building, 'manifest.json'), JSON.stringify({ script, style }));
  // mkdtemp made the folder 0700: readable by every account, as the bundle is public (a container
  // builds it as root at image build and serves it as a non-root user).
  fs.chmodSync(building, 0o755);
  try {
    fs.renameSync(building, dir);
  } catch {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return { dir, ...JSON.parse(fs.readFileSync(manifest, 'utf8')) };
}

/** What the page needs to know; nothing secret (the identity provider's web API key is public by design). */
export interface ConsoleSettings {
  mode: 'identity-provider' | 'api-key' | 'local';
  apiKeyRequired: boolean;
  identityProvider: { apiKey: string; authUrl: string; tokenUrl: string } | null;
  reanalyzeAvailable: boolean;
}

export function consoleSettings(ctx: AppContext): ConsoleSettings {
  const web = ctx.config.consoleIdentity;
  return {
    mode: ctx.identity ? 'identity-provider' : ctx.config.apiKey ? 'api-key' : 'local',
    apiKeyRequired: !!ctx.config.apiKey,
    identityProvider: ctx.identity && web ? web : null,
    reanalyzeAvailable: !ctx.config.isProduction,
  };
}

function contentSecurityPolicy(settings: ConsoleSettings): string {
  const connect = ["'self'", ...(settings.identityProvider ? [new URL(settings.identityProvider.authUrl).origin, new URL(settings.identityProvider.tokenUrl).origin] : [])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    // The waveform player styles its own shadow DOM with <style> elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src ${[...new Set(connect)].join(' ')}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function escapeJsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

function pageHtml(build: ConsoleBuild, settings: ConsoleSettings): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Call Analysis</title>
${build.style ? `<link rel="stylesheet" href="/assets/${build.style}">` : ''}
<script type="application/json" id="console-settings">${escapeJsonForHtml(settings)}</script>
<script type="module" src="/assets/${build.script}"></script>
</head>
<body><div id="app"></div><noscript>The console needs JavaScript.</noscript></body>
</html>`;
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

export async function registerConsole(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const build = await buildConsole();
  const settings = consoleSettings(ctx);
  const html = pageHtml(build, settings);
  const csp = contentSecurityPolicy(settings);

  // Local mode acts as the one local user on every request: the console is for this machine only.
  // The socket's address, not X-Forwarded-For: a proxy in front must not make a remote client local.
  const guard = (req: FastifyRequest, reply: FastifyReply): boolean => {
    if (settings.mode === 'local' && !isLoopback(req.socket.remoteAddress)) {
      void reply.status(404).type('text/plain; charset=utf-8').send('Not found');
      return false;
    }
    return true;
  };

  await app.register(async (scope) => {
    scope.addHook('onRequest', (req, reply, done) => {
      if (guard(req, reply)) done();
    });
    await scope.register(fastifyStatic, {
      root: path.join(build.dir, 'assets'),
      prefix: '/assets/',
      preCompressed: true,
      immutable: true,
      maxAge: 365 * 24 * 3600 * 1000,
      index: false,
      wildcard: true,
      schemaHide: true,
    });
    for (const page of PAGES) {
      scope.get(page, { schema: { hide: true } }, async (_req, reply) =>
        reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('content-security-policy', csp)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'same-origin')
          .send(html),
      );
    }
  });
}
