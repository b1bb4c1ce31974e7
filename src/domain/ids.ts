// Resource ids are UUIDs; the one pattern every hand-written check uses (schemas use format: uuid,
// whose checker is isUuid too), and the one that blob keys and work-directory names are matched
// with (`UUID_SOURCE` inside a larger expression). Ids are written lower case; the check accepts
// either case, as format: uuid does.
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_RE = new RegExp(`^${UUID_SOURCE}$`, 'i');

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
