// The account: profile, consent, limits and usage, the voice profile (recorded in the browser or
// from a file, after its consent notice), and account deletion.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, formatDate, upload } from '../api.js';
import { signOut } from '../auth.js';
import { toWav } from '../wav.js';

/** The document versions this console presents; accepting sends them (the service stamps the time). */
const CONSENT_VERSIONS = { privacyPolicyVersion: '1', termsVersion: '1', callRecordingDisclaimerVersion: '1' };

interface Profile {
  email: string | null;
  displayName: string | null;
  plan: string;
  privacyPolicyVersion: string | null;
  termsVersion: string | null;
  callRecordingDisclaimerVersion: string | null;
  marketingOptIn: boolean;
  accountStatus: string;
  accountStatusReason: string | null;
}
type Limits = Record<string, number | string | null>;
interface VoiceStatus {
  status: string;
  createdAt?: string;
}

const LIMIT_LABELS: Array<[string, string, string?]> = [
  ['minutesUsedThisPeriod', 'Minutes used (30 days)', 'minutesLimit'],
  ['transcriptsToday', 'Transcripts today', 'dailyTranscriptLimit'],
  ['uploadsThisHour', 'Uploads this hour', 'maxUploadsPerHour'],
  ['activeCalls', 'Calls processing now', 'maxConcurrentActiveCalls'],
  ['uploadedBytesThisMonth', 'Uploaded bytes (30 days)', 'maxMonthlyUploadBytes'],
  ['topupMinutesBalance', 'Extra minutes'],
  ['topupTranscriptsBalance', 'Extra transcripts'],
];

function VoiceProfile() {
  const [status, setStatus] = useState<VoiceStatus | null>(null);
  const [available, setAvailable] = useState(true);
  const [consent, setConsent] = useState(false);
  const [recording, setRecording] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const load = () =>
    api<VoiceStatus>('GET', '/api/users/me/voice-profile/status').then(setStatus, (e) => {
      if (e instanceof ApiError && e.code === 'feature_not_available') setAvailable(false);
      else setMessage((e as Error).message);
    });
  useEffect(() => {
    void load();
  }, []);

  async function enrol(file: Blob, name: string) {
    setMessage(null);
    const form = new FormData();
    form.append('file', file, name);
    try {
      await upload('/api/users/me/voice-profile', form, () => undefined);
      setMessage('Voice profile saved.');
      void load();
    } catch (err) {
      setMessage(`The sample was not accepted: ${(err as Error).message}`);
    }
  }
  async function startRecording() {
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks: Blob[] = [];
      const r = new MediaRecorder(stream);
      r.ondataavailable = (e) => chunks.push(e.data);
      r.onstop = async () => {
        stream.getTracks().forEach((t) => t.stop());
        setRecording(false);
        void enrol(await toWav(new Blob(chunks, { type: r.mimeType })), 'voice-sample.wav');
      };
      recorder.current = r;
      r.start();
      setRecording(true);
    } catch {
      setMessage('The microphone could not be opened. Allow it in the browser, or upload a file instead.');
    }
  }
  async function remove() {
    await api('DELETE', '/api/users/me/voice-profile');
    void load();
  }

  if (!available) return null;
  return (
    <section aria-labelledby="voice-heading">
      <h2 id="voice-heading">Voice profile</h2>
      <p>
        With a voice profile the service can tell which speaker in a call is you. Status: <strong>{status?.status ?? '…'}</strong>
        {status?.createdAt ? ` (since ${formatDate(status.createdAt)})` : ''}
      </p>
      <label class="inline">
        <input type="checkbox" checked={consent} onChange={(e) => setConsent(e.currentTarget.checked)} /> I agree that a voice print computed from my sample is stored to recognise me in my calls.
      </label>
      <div class="controls">
        {!recording ? (
          <button type="button" disabled={!consent} onClick={() => void startRecording()}>
            Record a sample
          </button>
        ) : (
          <button type="button" onClick={() => recorder.current?.stop()}>
            Stop and save
          </button>
        )}
        <label class="file">
          Upload a voice sample
          <input
            type="file"
            accept=".wav,.mp3,.m4a,audio/*"
            disabled={!consent}
            onChange={(e) => {
              const f = e.currentTarget.files?.[0];
              if (f) void enrol(f, f.name);
            }}
          />
        </label>
        {status?.status && status.status !== 'MISSING' && (
          <button type="button" onClick={() => void remove()}>
            Delete voice profile
          </button>
        )}
      </div>
      {message && <p role="status">{message}</p>}
    </section>
  );
}

export function AccountPage() {
  const [profile, setProfile] = useState<Profile | null>(null);
  const [limits, setLimits] = useState<Limits | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    api<Profile>('GET', '/api/users/me').then((p) => {
      setProfile(p);
      setName(p.displayName ?? '');
    }, (e) => setError((e as Error).message));
    api<Limits>('GET', '/api/users/me/limits').then(setLimits, () => undefined);
  }, []);

  async function saveName(e: Event) {
    e.preventDefault();
    try {
      setProfile(await api<Profile>('PATCH', '/api/users/me', { displayName: name.trim() }));
      setNotice('Name saved.');
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function consent(body: Record<string, unknown>) {
    try {
      setProfile(await api<Profile>('PATCH', '/api/users/me/consent', body));
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function deleteAccount() {
    if (!confirm('Delete your account with every call, recording, analysis and action item? This cannot be undone.')) return;
    try {
      await api('DELETE', '/api/users/me');
      await signOut();
      location.assign('/');
    } catch (err) {
      setError((err as Error).message);
    }
  }

  if (!profile) return error ? <p role="alert">{error}</p> : <p aria-busy="true">Loading…</p>;
  const accepted = profile.privacyPolicyVersion === CONSENT_VERSIONS.privacyPolicyVersion && profile.termsVersion === CONSENT_VERSIONS.termsVersion && profile.callRecordingDisclaimerVersion === CONSENT_VERSIONS.callRecordingDisclaimerVersion;
  return (
    <>
      <h1>Account</h1>
      {error && <p role="alert">{error}</p>}
      {notice && <p role="status">{notice}</p>}
      <section aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        <p>
          {profile.email ?? 'No e-mail'} · plan {profile.plan} · account {profile.accountStatus.toLowerCase()}
          {profile.accountStatusReason ? ` (${profile.accountStatusReason})` : ''}
        </p>
        <form onSubmit={saveName} class="inline-form">
          <label>
            Your name (how calls name you)
            <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Save name</button>
        </form>
      </section>
      <section aria-labelledby="consent-heading">
        <h2 id="consent-heading">Consent</h2>
        {accepted ? <p>You accepted the current privacy policy, terms and call-recording notice.</p> : (
          <>
            <p>Please accept the current privacy policy, terms of use and call-recording notice (version {CONSENT_VERSIONS.termsVersion}).</p>
            <button type="button" onClick={() => void consent(CONSENT_VERSIONS)}>
              Accept
            </button>
          </>
        )}
        <label class="inline">
          <input type="checkbox" checked={profile.marketingOptIn} onChange={(e) => void consent({ marketingOptIn: e.currentTarget.checked })} /> Send me product news
        </label>
      </section>
      {limits && (
        <section aria-labelledby="limits-heading">
          <h2 id="limits-heading">Limits and usage</h2>
          <table>
            <tbody>
              {LIMIT_LABELS.map(([key, label, limitKey]) => (
                <tr key={key}>
                  <th scope="row">{label}</th>
                  <td>
                    {limits[key] ?? '–'}
                    {limitKey ? ` of ${limits[limitKey] ?? 'unlimited'}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <VoiceProfile />
      <section aria-labelledby="danger-heading">
        <h2 id="danger-heading">Delete account</h2>
        <button type="button" class="danger" onClick={() => void deleteAccount()}>
          Delete my account
        </button>
      </section>
    </>
  );
}
