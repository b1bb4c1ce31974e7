// A small tmpfs mounted over a folder, for the tests that make storage fail for real: full (the
// tmpfs's size) or read-only (remounted). Mounting needs root; the tests skip elsewhere, and fail
// under CI, where a silent skip would hide them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDir } from './service.js';

function canMount(): boolean {
  const probe = tempDir('cas-mount-probe-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/**
 * The `skip` option of a suite that mounts a tmpfs: false where mounting works, a reason where it
 * does not; under CI a missing permission is an error naming `what` needs it.
 */
export function tmpfsSkip(what: string): false | string {
  if (canMount()) return false;
  if (process.env.CI) throw new Error(`${what} need(s) permission to mount a tmpfs (run as root)`);
  return 'mounting a tmpfs is not permitted here';
}

export interface Tmpfs {
  /** Makes the mount read-only, or writable again. */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts (lazily, so an open file does not stop it); a second call does nothing. */
  unmount(): void;
}

/** Mounts a tmpfs of `size` (mount's syntax: `256k`) at `dir`, made first if missing. */
export function mountTmpfs(dir: string, size: string): Tmpfs {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  let mounted = true;
  return {
    remount(mode) {
      execFileSync('mount', ['-o', `remount,${mode}`, dir]);
    },
    unmount() {
      if (!mounted) return;
      mounted = false;
      execFileSync('umount', ['-l', dir]);
    },
  };
}
