// Operators: feature flags, accounts (status, plan, credits) and the audit log. The admin routes
// answer 404 to everyone else, so this page only shows what the service lets the caller see.
import { useEffect, useState } from 'preact/hooks';
import { api, formatDate } from '../api.js';

interface Flag {
  flagKey: string;
  enabled: boolean;
  updatedAt: string | null;
}
interface Account {
  id: string;
  email: string | null;
  displayName: string | null;
  plan: string;
  accountStatus: string;
  accountStatusReason: string | null;
  topupMinutesBalance: number;
  topupTranscriptsBalance: number;
}
interface Page<T> {
  content: T[];
  totalPages: number;
  number: number;
}
interface AuditEntry {
  id: string;
  createdAt: string;
  action: string;
  actorEmail: string;
  targetType: string;
  targetId: string;
  details: string;
}

function Flags() {
  const [flags, setFlags] = useState<Flag[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Flag[]>('GET', '/api/admin/feature-flags').then(setFlags, (e) => setError((e as Error).message));
  }, []);
  async function toggle(f: Flag, enabled: boolean) {
    try {
      const updated = await api<Flag>('PATCH', `/api/admin/feature-flags/${encodeURIComponent(f.flagKey)}`, { enabled });
      setFlags((list) => list.map((x) => (x.flagKey === f.flagKey ? updated : x)));
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <section aria-labelledby="flags-heading">
      <h2 id="flags-heading">Feature flags</h2>
      {error && <p role="alert">{error}</p>}
      <ul>
        {flags.map((f) => (
          <li key={f.flagKey}>
            <label class="inline">
              <input type="checkbox" checked={f.enabled} onChange={(e) => void toggle(f, e.currentTarget.checked)} /> {f.flagKey}
            </label>
            {f.updatedAt && <span class="meta"> changed {formatDate(f.updatedAt)}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Accounts() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const [data, setData] = useState<Page<Account> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<Page<Account>>('GET', `/api/admin/users?page=${page}&size=25${search ? `&search=${encodeURIComponent(search)}` : ''}`).then(setData, (e) => setError((e as Error).message));
  useEffect(() => {
    void load();
  }, [page]);
  async function act(path: string, body: unknown, method = 'PATCH') {
    try {
      await api(method, path, body);
      setError(null);
      void load();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Accounts</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setPage(0);
          void load();
        }}
        class="inline-form"
      >
        <label>
          E-mail contains
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <button type="submit">Find</button>
      </form>
      {error && <p role="alert">{error}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Status</th>
            <th scope="col">Plan</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          {data?.content.map((a) => {
            const who = a.email ?? a.displayName ?? a.id;
            return (
              <tr key={a.id}>
                <td>{who}</td>
                <td>
                  <select aria-label={`Status of ${who}`} value={a.accountStatus} onChange={(e) => void act(`/api/admin/users/${a.id}/status`, { status: e.currentTarget.value })}>
                    <option value="ACTIVE">Active</option>
                    <option value="SUSPENDED">Suspended</option>
                    <option value="DISABLED">Disabled</option>
                  </select>
                  {a.accountStatusReason && <span class="meta"> {a.accountStatusReason}</span>}
                </td>
                <td>
                  <select aria-label={`Plan of ${who}`} value={a.plan} onChange={(e) => void act(`/api/admin/users/${a.id}/plan`, { plan: e.currentTarget.value })}>
                    <option value="FREE">Free</option>
                    <option value="PRO">Pro</option>
                  </select>
                </td>
                <td>
                  {a.topupMinutesBalance} min, {a.topupTranscriptsBalance} transcripts{' '}
                  <button type="button" class="link small" onClick={() => void act(`/api/admin/users/${a.id}/grant-credits`, { minutes: 60 }, 'POST')}>
                    Grant 60 minutes to {who}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {data && data.totalPages > 1 && (
        <p>
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>{' '}
          Page {page + 1} of {data.totalPages}{' '}
          <button type="button" disabled={page + 1 >= data.totalPages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </p>
      )}
    </section>
  );
}

function AuditLog() {
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  useEffect(() => {
    api<Page<AuditEntry>>('GET', '/api/admin/audit-log?size=50').then((p) => setEntries(p.content), () => undefined);
  }, []);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{formatDate(e.createdAt)}</td>
              <td>{e.actorEmail}</td>
              <td>{e.action}</td>
              <td>
                {e.targetType} {e.targetId}
              </td>
              <td>
                <code>{e.details}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function AdminPage() {
  return (
    <>
      <h1>Admin</h1>
      <Flags />
      <Accounts />
      <AuditLog />
    </>
  );
}
