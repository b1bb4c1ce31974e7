// A local stand-in for the identity provider's web sign-in (the Identity Toolkit REST protocol the
// console speaks): password sign-in and refresh-token exchange, answering with ID tokens signed by
// a TestIdp, so the service verifies them as it verifies the provider's. Accounts are registered
// by the test with their password and claims. CORS is open, as the provider's is.
import crypto from 'node:crypto';
import http from 'node:http';
import type { TestIdp } from './service.js';

interface Account {
  password: string;
  claims: { sub: string; email: string; [k: string]: unknown };
}

export class IdentityToolkitStandIn {
  readonly apiKey = 'test-web-api-key';
  url = '';
  signIns = 0;
  refreshes = 0;
  private readonly accounts = new Map<string, Account>();
  private readonly refreshTokens = new Map<string, string>();
  private server!: http.Server;

  private constructor(private readonly idp: TestIdp) {}

  static async start(idp: TestIdp): Promise<IdentityToolkitStandIn> {
    const s = new IdentityToolkitStandIn(idp);
    s.server = http.createServer((req, res) => void s.handle(req, res));
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    s.url = `http://127.0.0.1:${(s.server.address() as { port: number }).port}`;
    return s;
  }

  addAccount(email: string, password: string, claims: Record<string, unknown> = {}): void {
    this.accounts.set(email, { password, claims: { sub: `web-${crypto.randomBytes(4).toString('hex')}`, email, email_verified: true, ...claims } });
  }

  env(): Record<string, string> {
    return { IDP_WEB_API_KEY: this.apiKey, IDP_WEB_AUTH_URL: this.url, IDP_WEB_TOKEN_URL: this.url };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type', 'access-control-allow-methods': 'POST' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const send = (status: number, json: unknown): void => {
      res.writeHead(status, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    if (url.searchParams.get('key') !== this.apiKey) return send(400, { error: { message: 'API_KEY_INVALID' } });
    if (url.pathname === '/v1/accounts:signInWithPassword') {
      this.signIns++;
      const account = this.accounts.get(body.email);
      if (!account || account.password !== body.password) return send(400, { error: { message: 'INVALID_LOGIN_CREDENTIALS' } });
      const refreshToken = crypto.randomBytes(16).toString('hex');
      this.refreshTokens.set(refreshToken, body.email);
      return send(200, { idToken: await this.idp.token(account.claims), refreshToken, expiresIn: '3600', email: body.email, localId: account.claims.sub });
    }
    if (url.pathname === '/v1/token') {
      this.refreshes++;
      const email = this.refreshTokens.get(body.refresh_token);
      const account = email ? this.accounts.get(email) : undefined;
      if (!account) return send(400, { error: { message: 'INVALID_REFRESH_TOKEN' } });
      return send(200, { id_token: await this.idp.token(account.claims), refresh_token: body.refresh_token, expires_in: '3600', user_id: account.claims.sub });
    }
    send(404, { error: { message: 'NOT_FOUND' } });
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
