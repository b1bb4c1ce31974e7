// The setup most HTTP suites share: a local identity provider and the service on one database
// mode (`withIdpService`), usually with two signed-in users A and B (`withTwoUsers`; B exists so
// that ownership can be checked against A's data). Both register the before/after hooks in the
// calling describe and return the service at once; its fields are filled by the before hook, so
// read them inside tests and hooks.
import { after, before } from 'node:test';
import { startTestService, TestIdp, type DbMode, type TestService, type TestServiceOptions } from './service.js';

/** Claims of a test user's ID token (`sub` names the user at the identity provider). */
export interface UserClaims {
  sub: string;
  email?: string;
  name?: string;
  [claim: string]: unknown;
}

/** A test service with its identity provider; usable wherever a TestService is. */
export class IdpTestService implements TestService {
  private started: TestService | null = null;
  private provider: TestIdp | null = null;

  protected get running(): TestService {
    if (!this.started) throw new Error('the test service is not started yet: use it inside tests and hooks');
    return this.started;
  }

  get idp(): TestIdp {
    if (!this.provider) throw new Error('the identity provider is not started yet: use it inside tests and hooks');
    return this.provider;
  }

  get url(): string {
    return this.running.url;
  }

  get service(): TestService['service'] {
    return this.running.service;
  }

  get dataDir(): string {
    return this.running.dataDir;
  }

  request: TestService['request'] = (method, p, opts) => this.running.request(method, p, opts);

  /** Starts the identity provider, then the service on `mode` with its variables added to `opts.env`. */
  async start(mode: DbMode, opts: TestServiceOptions): Promise<void> {
    this.provider = await TestIdp.start();
    this.started = await startTestService({ ...opts, db: mode, env: { ...this.provider.env(), ...opts.env } });
  }

  /** The service's id of the user a token signs in (created on first use). */
  async userIdOf(token: string): Promise<string> {
    const r = await this.running.request('GET', '/api/users/me', { token });
    if (r.status !== 200) throw new Error(`GET /api/users/me answered ${r.status}`);
    return r.body.id as string;
  }

  async stop(): Promise<void> {
    await this.started?.stop();
    await this.provider?.stop();
  }
}

/** The service with users A and B signed in once (so both exist). */
export class TwoUserService extends IdpTestService {
  tokenA = '';
  tokenB = '';
  userA = '';
  userB = '';

  async startWithUsers(mode: DbMode, users: { a: UserClaims; b: UserClaims }, opts: TestServiceOptions): Promise<void> {
    await this.start(mode, opts);
    this.tokenA = await this.idp.token(users.a);
    this.tokenB = await this.idp.token(users.b);
    this.userA = await this.userIdOf(this.tokenA);
    this.userB = await this.userIdOf(this.tokenB);
  }
}

/**
 * Starts, in the calling describe's before hook, the identity provider and the service on `mode`
 * (with `opts`; the provider's variables are added to `opts.env`); stops both in its after hook.
 * Hooks the suite registers after this call run after these.
 */
export function withIdpService(mode: DbMode, opts: TestServiceOptions = {}): IdpTestService {
  const t = new IdpTestService();
  before(() => t.start(mode, opts));
  after(() => t.stop());
  return t;
}

/** `withIdpService`, and users A and B signed in with these claims. */
export function withTwoUsers(mode: DbMode, users: { a: UserClaims; b: UserClaims }, opts: TestServiceOptions = {}): TwoUserService {
  const t = new TwoUserService();
  before(() => t.startWithUsers(mode, users, opts));
  after(() => t.stop());
  return t;
}
