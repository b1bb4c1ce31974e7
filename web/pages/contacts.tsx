// Contacts: list (sorted by name), add, edit and delete.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Contact } from '../types.js';

const EMPTY = { name: '', phoneNumber: '', email: '', notes: '' };

export function ContactsPage() {
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [form, setForm] = useState<typeof EMPTY>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<Contact[]>('GET', '/api/contacts').then(setContacts, (e) => setError((e as Error).message));
  useEffect(() => {
    void load();
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    const body = { name: form.name.trim(), phoneNumber: form.phoneNumber.trim() || null, email: form.email.trim() || null, notes: form.notes.trim() || null };
    try {
      if (editing) await api('PUT', `/api/contacts/${editing}`, body);
      else await api('POST', '/api/contacts', body);
      setForm(EMPTY);
      setEditing(null);
      setError(null);
      void load();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function remove(c: Contact) {
    if (!confirm(`Delete the contact ${c.name}? Calls linked to it are kept.`)) return;
    try {
      await api('DELETE', `/api/contacts/${c.id}`);
      void load();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  const field = (key: keyof typeof EMPTY, label: string, type: 'text' | 'tel' | 'email' = 'text') => (
    <label>
      {label}
      <input type={type as 'text'} value={form[key]} required={key === 'name'} onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })} />
    </label>
  );

  return (
    <>
      <h1>Contacts</h1>
      {error && <p role="alert">{error}</p>}
      <form onSubmit={submit} class="card-form" aria-label={editing ? 'Edit contact' : 'New contact'}>
        {field('name', 'Name')}
        {field('phoneNumber', 'Phone number', 'tel')}
        {field('email', 'E-mail', 'email')}
        {field('notes', 'Notes')}
        <button type="submit">{editing ? 'Save contact' : 'Add contact'}</button>
        {editing && (
          <button
            type="button"
            onClick={() => {
              setEditing(null);
              setForm(EMPTY);
            }}
          >
            Cancel
          </button>
        )}
      </form>
      <table>
        <caption>Your contacts</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Phone</th>
            <th scope="col">E-mail</th>
            <th scope="col">Notes</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {contacts.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{c.phoneNumber}</td>
              <td>{c.email}</td>
              <td>{c.notes}</td>
              <td>
                <button
                  type="button"
                  class="link small"
                  onClick={() => {
                    setEditing(c.id);
                    setForm({ name: c.name, phoneNumber: c.phoneNumber ?? '', email: c.email ?? '', notes: c.notes ?? '' });
                  }}
                >
                  Edit {c.name}
                </button>
                <button type="button" class="link small" onClick={() => void remove(c)}>
                  Delete {c.name}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
