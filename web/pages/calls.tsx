// The calls page: upload (with the call's contact and direction) with a progress bar, the list with each call's status (and progress or
// failure reason), polling while calls are processed, and bulk delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, formatClock, formatDate, upload } from '../api.js';
import type { Contact } from '../types.js';

interface CallItem {
  callId: string;
  title: string | null;
  contactName: string | null;
  direction: string | null;
  status: string;
  durationSeconds: number | null;
  createdAt: string;
  actionItemCount: number;
}
interface Detail {
  status: string;
  errorReason: string | null;
  progress?: { stage: string; percent: number | null };
}

const TERMINAL = new Set(['COMPLETED', 'FAILED']);
const STATUS_TEXT: Record<string, string> = {
  QUEUED: 'Queued',
  PROCESSING: 'Decoding',
  TRANSCRIBING: 'Transcribing',
  ANALYZING: 'Analysing',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
};
/** Stable failure reasons of the spec, in words. */
const REASONS: Record<string, string> = {
  audio_undecodable: 'The file could not be decoded as audio.',
  no_speech_detected: 'No speech was found in the recording.',
  audio_too_long: 'The recording is longer than allowed.',
  transcription_failed: 'Speech recognition failed.',
  transcription_provider_error: 'The speech recognition service failed.',
  analysis_failed: 'The analysis failed.',
  audio_missing: 'The recording was not found in storage.',
  analysis_provider_error: 'The analysis service failed.',
  diarization_failed: 'The speakers could not be separated.',
  internal_error: 'An internal error stopped processing.',
};

type Direction = '' | 'INCOMING' | 'OUTGOING';
const DIRECTIONS: Array<[Direction, string]> = [
  ['', 'Not given'],
  ['INCOMING', 'Incoming'],
  ['OUTGOING', 'Outgoing'],
];

/**
 * The upload form: the recording and the optional fields of the spec's metadata envelope a person
 * knows at hand: a title (the file's name when left empty), the other party (one of the user's
 * contacts, picked by name, or any name and phone number typed in; the service assigns the contact
 * of that name, or creates one) and the direction.
 */
function Upload({ onUploaded }: { onUploaded: () => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [contactName, setContactName] = useState('');
  const [phoneNumber, setPhoneNumber] = useState('');
  const [direction, setDirection] = useState<Direction>('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // Suggestions only: without them the fields still take any name.
    api<Contact[]>('GET', '/api/contacts').then(setContacts, () => undefined);
  }, []);

  /** A name picked from the contacts brings that contact's number along, unless one was typed. */
  function pickName(name: string) {
    setContactName(name);
    const known = contacts.find((c) => c.name.toLowerCase() === name.trim().toLowerCase());
    if (known?.phoneNumber && !phoneNumber.trim()) setPhoneNumber(known.phoneNumber);
  }

  async function send(e: Event) {
    e.preventDefault();
    if (!file) return;
    setMessage(null);
    setProgress(0);
    const metadata: Record<string, string> = { title: title.trim() || file.name.replace(/\.[^.]+$/, '') };
    if (contactName.trim()) metadata.contactName = contactName.trim();
    if (phoneNumber.trim()) metadata.phoneNumber = phoneNumber.trim();
    if (direction) metadata.direction = direction;
    const form = new FormData();
    form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }), 'metadata.json');
    form.append('file', file, file.name);
    try {
      await upload('/api/calls/analyze', form, setProgress);
      setMessage(`Uploaded "${file.name}". It is processed now.`);
      setFile(null);
      setTitle('');
      setContactName('');
      setPhoneNumber('');
      setDirection('');
      if (input.current) input.current.value = '';
      onUploaded();
    } catch (err) {
      setMessage(err instanceof ApiError ? `Upload failed: ${err.message}` : 'Upload failed.');
    } finally {
      setProgress(null);
    }
  }

  const busy = progress !== null;
  return (
    <section class="upload" aria-labelledby="upload-heading">
      <h2 id="upload-heading">New call</h2>
      <form onSubmit={send} aria-labelledby="upload-heading">
        <label class="file">
          Recording
          <input ref={input} type="file" required accept=".m4a,.mp3,.wav,.aac,.ogg,audio/*" disabled={busy} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </label>
        <label>
          Title (optional)
          <input type="text" maxLength={500} value={title} disabled={busy} placeholder={file ? file.name.replace(/\.[^.]+$/, '') : ''} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Contact (optional)
          <input type="text" list="upload-contacts" maxLength={200} autoComplete="off" value={contactName} disabled={busy} onInput={(e) => pickName(e.currentTarget.value)} />
        </label>
        <datalist id="upload-contacts">
          {contacts.map((c) => (
            <option key={c.id} value={c.name}>
              {c.phoneNumber ?? ''}
            </option>
          ))}
        </datalist>
        <label>
          Phone number (optional)
          <input type="tel" maxLength={50} autoComplete="off" value={phoneNumber} disabled={busy} onInput={(e) => setPhoneNumber(e.currentTarget.value)} />
        </label>
        <fieldset class="choices" disabled={busy}>
          <legend>Direction</legend>
          {DIRECTIONS.map(([value, text]) => (
            <label key={value || 'none'} class="inline">
              <input type="radio" name="direction" value={value} checked={direction === value} onChange={() => setDirection(value)} />
              {text}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy || !file}>
          Upload
        </button>
      </form>
      {busy && (
        <progress max={1} value={progress} aria-label="Upload progress">
          {Math.round(progress * 100)} %
        </progress>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}

export function CallsPage() {
  const [items, setItems] = useState<CallItem[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [details, setDetails] = useState<Record<string, Detail>>({});
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function load(cursor?: string) {
    try {
      const page = await api<{ items: CallItem[]; nextCursor?: string }>('GET', `/api/calls?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      setItems((old) => (cursor ? [...old, ...page.items] : page.items));
      setNext(page.nextCursor);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  useEffect(() => {
    void load();
  }, []);

  // Calls still being processed: poll their statuses (the cheap route), with progress from the detail.
  const pending = items.filter((c) => !TERMINAL.has(c.status)).map((c) => c.callId);
  const failed = items.filter((c) => c.status === 'FAILED' && !details[c.callId]).map((c) => c.callId);
  useEffect(() => {
    for (const id of failed) api<Detail>('GET', `/api/calls/${id}`).then((d) => setDetails((m) => ({ ...m, [id]: d })), () => undefined);
  }, [failed.join(',')]);
  useEffect(() => {
    if (pending.length === 0) return;
    const timer = setInterval(async () => {
      try {
        const r = await api<{ items: Array<{ callId: string; status: string }> }>('GET', `/api/calls/status?ids=${pending.slice(0, 100).join(',')}`);
        const byId = new Map(r.items.map((s) => [s.callId, s.status]));
        const finished = r.items.some((s) => TERMINAL.has(s.status));
        setItems((old) => old.map((c) => (byId.has(c.callId) ? { ...c, status: byId.get(c.callId)! } : c)));
        for (const id of pending.slice(0, 10)) api<Detail>('GET', `/api/calls/${id}`).then((d) => setDetails((m) => ({ ...m, [id]: d })), () => undefined);
        // A finished call has a title, a duration and action items now.
        if (finished) void load();
      } catch {
        /* the next tick tries again */
      }
    }, 4000);
    return () => clearInterval(timer);
  }, [pending.join(',')]);

  async function deleteSelected() {
    const ids = [...selected];
    if (!ids.length || !confirm(`Delete ${ids.length} call${ids.length === 1 ? '' : 's'} with their recordings and analyses? This cannot be undone.`)) return;
    try {
      const r = await api<{ deleted: number; missing: number; failed: unknown[] }>('DELETE', '/api/calls', { callIds: ids });
      setNotice(`Deleted ${r.deleted} call${r.deleted === 1 ? '' : 's'}${r.failed.length ? `; ${r.failed.length} could not be deleted` : ''}.`);
      setSelected(new Set());
      void load();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const toggle = (id: string, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      if (on) n.add(id);
      else n.delete(id);
      return n;
    });

  return (
    <>
      <h1>Calls</h1>
      <Upload onUploaded={() => void load()} />
      {error && <p role="alert">{error}</p>}
      {notice && <p role="status">{notice}</p>}
      <section aria-labelledby="list-heading">
        <div class="toolbar">
          <h2 id="list-heading">Your calls</h2>
          <button type="button" disabled={selected.size === 0} onClick={() => void deleteSelected()}>
            Delete selected ({selected.size})
          </button>
        </div>
        {items.length === 0 ? (
          <p>No calls yet. Upload a recording to start.</p>
        ) : (
          <ul class="calls">
            {items.map((c) => {
              const d = details[c.callId];
              const title = c.title ?? 'Untitled call';
              return (
                <li key={c.callId} class={`call status-${c.status.toLowerCase()}`}>
                  <input type="checkbox" aria-label={`Select ${title}`} checked={selected.has(c.callId)} onChange={(e) => toggle(c.callId, e.currentTarget.checked)} />
                  <div class="call-main">
                    <a href={`/calls/${c.callId}`}>{title}</a>
                    <span class="meta">
                      {[c.contactName, c.direction === 'INCOMING' ? 'incoming' : c.direction === 'OUTGOING' ? 'outgoing' : null, c.durationSeconds != null ? formatClock(c.durationSeconds) : null, formatDate(c.createdAt)]
                        .filter(Boolean)
                        .join(' · ')}
                    </span>
                  </div>
                  <div class="call-status">
                    <span class="badge">{STATUS_TEXT[c.status] ?? c.status}</span>
                    {!TERMINAL.has(c.status) && (
                      <progress max={100} value={d?.progress?.percent ?? undefined} aria-label={`Progress of ${title}`} />
                    )}
                    {c.status === 'FAILED' && d?.errorReason && <span class="reason">{REASONS[d.errorReason] ?? d.errorReason}</span>}
                    {c.status === 'COMPLETED' && c.actionItemCount > 0 && (
                      <span class="meta">
                        {c.actionItemCount} action item{c.actionItemCount === 1 ? '' : 's'}
                      </span>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {next && (
          <button type="button" onClick={() => void load(next)}>
            More calls
          </button>
        )}
      </section>
    </>
  );
}
