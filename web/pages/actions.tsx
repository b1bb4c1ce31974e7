// The action-item board: every item of the user's calls in status columns; an item moves by its
// status control, its due date and priority are edited in place (PUT keeps every other field).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { ActionItem } from '../types.js';

const COLUMNS: Array<[string, string]> = [
  ['OPEN', 'Open'],
  ['IN_PROGRESS', 'In progress'],
  ['DONE', 'Done'],
  ['DISMISSED', 'Dismissed'],
];

export function ActionsPage() {
  const [items, setItems] = useState<ActionItem[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<ActionItem[]>('GET', '/api/actions').then(setItems, (e) => setError((e as Error).message));
  }, []);

  async function save(item: ActionItem, change: Partial<ActionItem>) {
    const next = { ...item, ...change };
    try {
      const updated = await api<ActionItem>('PUT', `/api/action-items/${item.id}`, {
        title: next.title,
        description: next.description,
        dueDate: next.dueDate || null,
        priority: next.priority || null,
        status: next.status,
      });
      setItems((list) => list.map((i) => (i.id === item.id ? updated : i)));
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function remove(item: ActionItem) {
    if (!confirm(`Delete the action item "${item.title}"?`)) return;
    try {
      await api('DELETE', `/api/action-items/${item.id}`);
      setItems((list) => list.filter((i) => i.id !== item.id));
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <>
      <h1>Action items</h1>
      <p>Items from your calls. New items are added on a call's page.</p>
      {error && <p role="alert">{error}</p>}
      <div class="board">
        {COLUMNS.map(([status, label]) => {
          const col = items.filter((i) => i.status === status);
          return (
            <section key={status} class="column" aria-labelledby={`col-${status}`}>
              <h2 id={`col-${status}`}>
                {label} ({col.length})
              </h2>
              <ul>
                {col.map((i) => (
                  <li key={i.id} class="card">
                    <strong>{i.title}</strong>
                    {i.description && <p>{i.description}</p>}
                    <p class="meta">
                      {[i.intent?.toLowerCase(), i.source === 'MANUAL' ? 'added by you' : 'from the call'].filter(Boolean).join(' · ')} · <a href={`/calls/${i.callRecordId}`}>open call</a>
                    </p>
                    <label>
                      Status of {i.title}
                      <select value={i.status} onChange={(e) => void save(i, { status: e.currentTarget.value })}>
                        {COLUMNS.map(([v, l]) => (
                          <option key={v} value={v}>
                            {l}
                          </option>
                        ))}
                      </select>
                    </label>
                    <label>
                      Due date of {i.title}
                      <input type="date" value={i.dueDate ?? ''} onChange={(e) => void save(i, { dueDate: e.currentTarget.value || null })} />
                    </label>
                    <label>
                      Priority of {i.title}
                      <select value={i.priority ?? ''} onChange={(e) => void save(i, { priority: e.currentTarget.value || null })}>
                        <option value="">None</option>
                        <option value="LOW">Low</option>
                        <option value="MEDIUM">Medium</option>
                        <option value="HIGH">High</option>
                      </select>
                    </label>
                    <button type="button" class="link small" onClick={() => void remove(i)}>
                      Delete
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          );
        })}
      </div>
    </>
  );
}
